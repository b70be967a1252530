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
 * The helpers that give the SQL of one engine or the other (store/sql/sql-database.ts and the query modules' own
 * fragment builders): each returns text made of its literal arguments and constants only, so a call of one whose
 * arguments are literals (or the connection, an alias, a dialect) is as trusted as a literal.
 */
const FRAGMENT_BUILDERS = new Set([
  'sqlFor',
  'ignoreConflicts',
  'jsonArrayElements',
  'inJsonArray',
  'typed',
  'number',
  'elements',
  'bytes',
  'sessionMatches',
  'unitMatches',
  'sessionColumns',
  'sortValue',
  'groupMatchesFilters',
]);
/** Names a fragment builder may be handed besides literals: the connection and names chosen by the store's code. */
const FRAGMENT_ARGUMENTS = new Set(['database', 'dialect', 'alias']);
/** Local names the query modules give fragments of their engine's SQL (each bound to a builder's result above). */
const FRAGMENT_NAMES = new Set(['columns', 'matches', 'rowid']);
/**
 * Files whose SQL names tables and columns computed from the store's own table list (`COPY_TABLES`) and the
 * database's own schema (tokentap migrate's copy: every value is bound), or runs transaction control with the
 * connection's own savepoint numbers (pg-database.ts), or rewrites rows of the columns a migration lists as a
 * constant (009-well-formed-texts.ts's OWN_TEXT_COLUMNS): `exec` and computed names are allowed there, nothing else.
 */
const SCHEMA_DRIVEN = [
  /^copy\//,
  /^migrations\/009-well-formed-texts\.ts$/,
  /^postgres\/pg-database\.ts$/,
  /^postgres\/apply-pg-migrations\.ts$/,
  /^postgres\/migrations\//,
  /^sql\/sql-database\.ts$/,
];
// sql/sql-database.ts: the fragment builders and prepareInsert forward the SQL their callers give, which is checked
// at each call site (prepareInsert's as a SQL-taking call below)

function isLiteral(node: ts.Node): boolean {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

/**
 * A substitution allowed inside SQL text: a module constant (`${CALL_COLUMNS}`, `${DEFAULT_BUSY_TIMEOUT_MS}`) or one
 * indexed by the dialect, in migrations the migration's own number (`${migration.version}`), in a PRAGMA (SQLite
 * binds no parameters there) a number made by `Math.*` or `Number(...)`, a choice between two literals, and an
 * engine's fragment (FRAGMENT_BUILDERS, FRAGMENT_NAMES). Never text from a caller.
 */
function isTrustedSubstitution(expression: ts.Expression, inMigrations: boolean, isPragma: boolean): boolean {
  if (ts.isIdentifier(expression)) return /^[A-Z][A-Z0-9_]*$/.test(expression.text) || FRAGMENT_NAMES.has(expression.text);
  if (isPragma && ts.isCallExpression(expression) && /^(Math\.\w+|Number)$/.test(expression.expression.getText())) return true;
  if (ts.isConditionalExpression(expression)) return isLiteral(expression.whenTrue) && isLiteral(expression.whenFalse);
  if (ts.isElementAccessExpression(expression)) return /^[A-Z][A-Z0-9_]*\[dialect\]$/.test(expression.getText());
  if (ts.isCallExpression(expression)) return isTrustedFragmentCall(expression, inMigrations);
  return inMigrations && expression.getText() === 'migration.version';
}

/** A fragment builder called with literals, trusted templates, object literals of literals, or FRAGMENT_ARGUMENTS. */
function isTrustedFragmentCall(call: ts.CallExpression, inMigrations: boolean): boolean {
  if (!ts.isIdentifier(call.expression) || !FRAGMENT_BUILDERS.has(call.expression.text)) return false;
  return call.arguments.every((argument) => isTrustedSql(argument, inMigrations));
}

function isTrustedSql(node: ts.Expression, inMigrations: boolean): boolean {
  if (isLiteral(node)) return true;
  if (ts.isIdentifier(node)) return FRAGMENT_ARGUMENTS.has(node.text);
  if (ts.isTemplateExpression(node)) return node.templateSpans.every((span) => isTrustedSubstitution(span.expression, inMigrations, false));
  if (ts.isObjectLiteralExpression(node)) {
    return node.properties.every((property) => ts.isPropertyAssignment(property) && isTrustedSql(property.initializer, inMigrations));
  }
  if (ts.isCallExpression(node)) return isTrustedFragmentCall(node, inMigrations);
  return false;
}

interface Finding {
  line: number;
  text: string;
}

/** SQL built from anything but literals and constants, SQL glued with `+`, and `exec` outside migrations. */
function findUnsafeSql(text: string, inMigrations: boolean, schemaDriven = false): Finding[] {
  const source = ts.createSourceFile('scanned.ts', text, ts.ScriptTarget.ES2022, true);
  const findings: Finding[] = [];
  const report = (node: ts.Node): void => {
    findings.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().slice(0, 120) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'prepareInsert' && !schemaDriven) {
      if (!node.arguments.every((argument) => isTrustedSql(argument, inMigrations))) report(node);
    }
    const isRegexExec =
      ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isRegularExpressionLiteral(node.expression.expression);
    if (!isRegexExec && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && SQL_METHODS.has(node.expression.name.text)) {
      const sql = node.arguments[0];
      if (schemaDriven) {
        // exec and computed names allowed (SCHEMA_DRIVEN); values must still be bound: no SQL glued with `+`
      } else if (node.expression.name.text === 'exec' && !inMigrations) report(node);
      else if (sql === undefined) report(node);
      else if (ts.isCallExpression(sql)) {
        if (!isTrustedFragmentCall(sql, inMigrations)) report(node);
      } else if (ts.isTemplateExpression(sql)) {
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
      findUnsafeSql(
        readFileSync(file, 'utf8'),
        relative(storeRoot, file).startsWith('migrations'),
        SCHEMA_DRIVEN.some((pattern) => pattern.test(relative(storeRoot, file))),
      ).map((finding) => `${relative(ROOT, file)}:${finding.line} ${finding.text}`),
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
      'declare function sqlFor(database: unknown, sources: object): string; declare function typed(...args: unknown[]): string;',
      "database.prepare(sqlFor(database, { sqlite: 'SELECT 1', postgres: `SELECT ${sessionId}` }));",
      "database.prepare(`SELECT * FROM calls WHERE (${typed(database, '@since', 'double precision')} IS NULL)`);",
      'database.prepare(`SELECT * FROM calls WHERE (${typed(database, sessionId, "text")} IS NULL)`);',
      'declare function prepareInsert(database: unknown, sql: string): unknown; prepareInsert(database, `INSERT ${sessionId}`);',
    ].join('\n');
    expect(findUnsafeSql(probe, false).map((finding) => finding.line)).toEqual([3, 4, 4, 5, 6, 10, 12, 14, 15]);
    expect(findUnsafeSql("database.exec('CREATE TABLE t (id)');", true)).toEqual([]);
  });

  it('nothing outside store/ opens the database driver', () => {
    const importers = ['gateway', 'cli', 'export', 'reconstruct', 'trainer-adapters', 'sim', 'index.ts']
      .flatMap((entry) => (entry.endsWith('.ts') ? [join(ROOT, entry)] : sourceFiles(join(ROOT, entry))))
      .filter((file) => /from ['"]better-sqlite3['"]/.test(readFileSync(file, 'utf8')));
    expect(importers.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
