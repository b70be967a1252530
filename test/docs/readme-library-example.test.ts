import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { createSimBackend, type SimBackend } from '../../sim/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built library, which `from 'tokentap'` loads in a checkout or an install. */
const LIBRARY = new URL('../../dist/index.js', import.meta.url).href;
/** The backend URL the README's example names; the test points it at the simulator. */
const README_BACKEND = 'http://127.0.0.1:8000';

/** The first ```ts block under the README's "## The library" heading. */
function libraryExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## The library$/m)[1];
  const block = section === undefined ? undefined : /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md has no ```ts block under "## The library"');
  return block;
}

let sim: SimBackend;
let simUrl: string;
// in the checkout, as a user's file next to it would be: `openai` resolves from the checkout's node_modules
const work = (() => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  return mkdtempSync(join(ROOT, '.tmp', 'readme-example-'));
})();
beforeAll(async () => {
  // the example's agent asks the model (the simulator's default, Qwen/Qwen3-8B) for 6 x 7
  sim = await createSimBackend({ script: { replies: [{ times: 'forever', content: '42' }] } });
  simUrl = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the README's library example (issue 14)", () => {
  it('names its backend and imports from tokentap, listens on port 0 and closes the gateway', () => {
    const example = libraryExample();
    expect(example).toContain(`from 'tokentap'`);
    expect(example).toContain(`'${README_BACKEND}'`);
    expect(example).toMatch(/port: 0/);
    expect(example).toMatch(/await gateway\.close\(\)/);
  });

  it('runs as written against the simulator, exits 0, and the library prints nothing of its own', async () => {
    const source = libraryExample().replace(`from 'tokentap'`, `from '${LIBRARY}'`).replace(`'${README_BACKEND}'`, `'${simUrl}'`);
    const javascript = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    const file = join(work, 'example.mjs');
    writeFileSync(file, javascript);
    // spawned, not spawnSync: the simulator answering it runs on this process's event loop
    const child = spawn(process.execPath, [file], { cwd: work, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    const result = { stdout: '', stderr: '', status: null as number | null };
    child.stdout.on('data', (chunk: Buffer) => {
      result.stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      result.stderr += chunk.toString('utf8');
    });
    result.status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    // the example's own output: one line per sample (reward, token count), eight sessions of one call each; no log line
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(8);
    for (const line of lines) expect(line).toMatch(/^1 \d+$/);
  }, 90_000);
});
