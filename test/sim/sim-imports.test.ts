import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SIM = path.join(ROOT, 'sim');

/** Every module specifier of a TypeScript file: static imports and re-exports, `import type`, dynamic `import()`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    found.push((match[1] ?? match[2] ?? match[3])!);
  }
  return found;
}

function simFiles(): string[] {
  return readdirSync(SIM, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(SIM, file));
}

/** The repository-relative paths a sim file imports from outside sim/. */
function outsideImports(file: string): string[] {
  return specifiers(readFileSync(file, 'utf8'))
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) =>
      path
        .relative(ROOT, path.resolve(path.dirname(file), specifier))
        .split(path.sep)
        .join('/'),
    )
    .filter((target) => !target.startsWith('sim/'));
}

describe('the simulator shares no reading of model output with the gateway', () => {
  it('finds the imports of the sim files (the check below reads them)', () => {
    expect(
      specifiers("import { a } from './a.js';\nimport type { B } from '../b/c.js';\nexport { d } from './d.js';\nconst e = await import('./e.js');"),
    ).toEqual(['./a.js', '../b/c.js', './d.js', './e.js']);
    expect(simFiles().length).toBeGreaterThan(20);
    expect(simFiles().flatMap(outsideImports)).toContain('model-format/tokenizer/load-hf-tokenizer.js');
  });

  it('no file under sim/ imports anything but core/ and the tokenizer and chat template of model-format/', () => {
    const allowed = ['core/', 'model-format/tokenizer/', 'model-format/chat-template/'];
    const offending = simFiles().flatMap((file) =>
      outsideImports(file)
        .filter((target) => !allowed.some((prefix) => target.startsWith(prefix)) || /(^|\/)[^/]*pars(e|er|ers)\b[^/]*$|\/parsers?\//.test(target))
        .map((target) => `${path.relative(ROOT, file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });
});
