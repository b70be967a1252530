import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Calls that take SQL text. */
const SQL_METHODS = new Set(['prepare', 'exec', 'pragma']);
const SQL_WORDS = /\b(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA|WHERE|VALUES)\b/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * A substitution allowed inside SQL text: a module constant (`${CALL_COLUMNS}`, `${DEFAULT_BUSY_TIMEOUT_MS}`),
 * in migrations the migration's own number (`${migration.version}`), and in a PRAGMA (SQLite binds no parameters
 * there) a number made by `Math.*` or `Number(...)`. Never text from a caller.
 */
function isTrustedSubstitution(expression: ts.Expression, inMigrations: boolean, isPragma: boolean): boolean {
  if (ts.isIdentifier(expression)) return /^[A-Z][A-Z0-9_]*$/.test(expression.text);
  if (isPragma && ts.isCallExpression(expression) && /^(Math\.\w+|Number)$/.test(expression.expression.getText())) return true;
  return inMigrations && expression.getText() === 'migration.version';
}

interface Finding {
  line: number;
  text: string;
}

/** SQL built from anything but literals and constants, SQL glued with `+`, and `exec` outside migrations. */
function findUnsafeSql(text: string, inMigrations: boolean): Finding[] {
  const source = ts.createSourceFile('scanned.ts', text, ts.ScriptTarget.ES2022, true);
  const findings: Finding[] = [];
  const report = (node: ts.Node): void => {
    findings.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().slice(0, 120) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && SQL_METHODS.has(node.expression.name.text)) {
      const sql = node.arguments[0];
      if (node.expression.name.text === 'exec' && !inMigrations) report(node);
      else if (sql === undefined) report(node);
      else if (ts.isTemplateExpression(sql)) {
        const isPragma = node.expression.name.text === 'pragma';
        if (!sql.templateSpans.every((span) => isTrustedSubstitution(span.expression, inMigrations, isPragma))) report(node);
      } else if (!ts.isStringLiteral(sql) && !ts.isNoSubstitutionTemplateLiteral(sql) && !(inMigrations && sql.getText() === 'migration.sql')) {
        report(node);
      }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const literalSides = [node.left, node.right].filter(
        (side) => ts.isStringLiteral(side) || ts.isNoSubstitutionTemplateLiteral(side) || ts.isTemplateExpression(side),
      );
      if (literalSides.some((side) => SQL_WORDS.test(side.getText()))) report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

describe('SQL reaches the database only as prepared statements', () => {
  it('every SQL text in store/ is a literal or a module constant; exec runs only migrations', () => {
    const storeRoot = join(ROOT, 'store');
    const files = sourceFiles(storeRoot);
    expect(files.length).toBeGreaterThan(10);
    const findings = files.flatMap((file) =>
      findUnsafeSql(readFileSync(file, 'utf8'), relative(storeRoot, file).startsWith('migrations')).map(
        (finding) => `${relative(ROOT, file)}:${finding.line} ${finding.text}`,
      ),
    );
    expect(findings).toEqual([]);
  });

  it('the scan catches interpolated values, concatenation, exec and SQL held in a variable', () => {
    const probe = [
      'declare const database: { prepare(sql: string): unknown; exec(sql: string): void; pragma(sql: string): unknown };',
      'declare const sessionId: string; declare const COLUMNS: string;',
      "database.prepare(`SELECT * FROM calls WHERE session_id = '${sessionId}'`);",
      "database.prepare('SELECT * FROM calls WHERE id = ' + sessionId);",
      "database.exec('DELETE FROM calls');",
      "const sql = 'SELECT 1'; database.prepare(sql);",
      'database.prepare(`SELECT ${COLUMNS} FROM calls WHERE id = ?`);',
      "database.prepare('SELECT * FROM calls WHERE id = ?');",
      'database.pragma(`max_page_count = ${Math.floor(sessionId.length)}`);',
      'database.pragma(`user_version = ${sessionId}`);',
    ].join('\n');
    expect(findUnsafeSql(probe, false).map((finding) => finding.line)).toEqual([3, 4, 4, 5, 6, 10]);
    expect(findUnsafeSql("database.exec('CREATE TABLE t (id)');", true)).toEqual([]);
  });

  it('nothing outside store/ opens the database driver', () => {
    const importers = ['gateway', 'cli', 'export', 'reconstruct', 'trainer-adapters', 'sim', 'index.ts']
      .flatMap((entry) => (entry.endsWith('.ts') ? [join(ROOT, entry)] : sourceFiles(join(ROOT, entry))))
      .filter((file) => /from ['"]better-sqlite3['"]/.test(readFileSync(file, 'utf8')));
    expect(importers.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
