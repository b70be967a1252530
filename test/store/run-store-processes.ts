import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The built store (`npm run build`): what a child `node` process imports, as PostgreSQL's worker already needs. */
const BUILT_STORE = fileURLToPath(new URL('../../dist/store/index.js', import.meta.url));

export interface StoreProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one small ESM script in several `node` processes at once, as separate gateways on separate hosts would run:
 * each gets the built store as `store` (`const { openStore } = store`) and its own `args`. A barrier lines them up:
 * every process loads and connects first (`await ready()` in the script), and only when all are ready are they told
 * to go together, so their work overlaps however slow each start is. Resolves with each process's exit and output.
 *
 * @example
 * await runStoreProcesses(dir, `await ready(); const s = store.openStore({ path: args[0] }); ...`, [[url], [url]]);
 */
export async function runStoreProcesses(dir: string, body: string, argsList: string[][]): Promise<StoreProcessResult[]> {
  if (!existsSync(BUILT_STORE)) throw new Error(`${BUILT_STORE} is missing: build first (npm run build)`);
  const scriptPath = join(dir, `store-process-${process.pid}-${Date.now()}.mjs`);
  writeFileSync(
    scriptPath,
    `import * as store from ${JSON.stringify(pathToFileURL(BUILT_STORE).href)};
const args = process.argv.slice(2);
/** tells the parent this process is ready and waits for its go (one line on stdin) */
function ready() {
  process.stdout.write('ready\\n');
  return new Promise((resolve) => process.stdin.once('data', () => { process.stdin.pause(); resolve(); }));
}
${body}
`,
  );
  let waiting = argsList.length;
  let release: () => void = () => undefined;
  const allReady = new Promise<void>((resolve) => {
    release = resolve;
  });
  const children = argsList.map((args) => {
    const child = spawn(process.execPath, [scriptPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const result: StoreProcessResult = { code: null, signal: null, stdout: '', stderr: '' };
    let announced = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      result.stdout += chunk;
      if (!announced && result.stdout.includes('ready\n')) {
        announced = true;
        waiting -= 1;
        if (waiting === 0) release();
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      result.stderr += chunk;
    });
    const exited = new Promise<StoreProcessResult>((resolve) => {
      child.on('close', (code, signal) => {
        // a process that died before it was ready must not hold the others at the barrier
        if (!announced) {
          announced = true;
          waiting -= 1;
          if (waiting === 0) release();
        }
        resolve({ ...result, code, signal });
      });
    });
    return { child, exited };
  });
  await allReady;
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map(({ exited }) => exited));
}

/** The lines a process printed after its `ready`, each parsed as JSON. */
export function outputLines<T>(result: StoreProcessResult): T[] {
  return result.stdout
    .split('\n')
    .filter((line) => line !== '' && line !== 'ready')
    .map((line) => JSON.parse(line) as T);
}
