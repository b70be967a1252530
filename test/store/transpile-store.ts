import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** store/ and the one floor below it, which it imports (errors, token ids). */
const TRANSPILED_FOLDERS = ['store', 'core'];

/**
 * Transpiles store/ (and core/, which it imports) to plain ESM under `targetDir`, so a child `node` process
 * (which cannot load TypeScript on Node 20) runs the store's real code. `targetDir` gets a node_modules link
 * to the repository's, so `better-sqlite3` resolves as it does in the repository.
 *
 * @example
 * transpileStore(dir); // then: spawnSync(process.execPath, [join(dir, 'child.mjs')])
 */
export function transpileStore(targetDir: string): void {
  for (const folder of TRANSPILED_FOLDERS) {
    const sourceDir = join(REPOSITORY_ROOT, folder);
    for (const sourcePath of listTypeScript(sourceDir)) {
      const output = ts.transpileModule(readFileSync(sourcePath, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
        fileName: sourcePath,
      });
      const targetPath = join(targetDir, folder, relative(sourceDir, sourcePath)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(targetPath), { recursive: true });
      writeFileSync(targetPath, output.outputText);
    }
  }
  writeFileSync(join(targetDir, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(targetDir, 'node_modules'), 'dir');
}

function listTypeScript(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTypeScript(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
