import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where a worker thread's compiled script is, for a module in the same folder (`folder`, from the package root).
 * Built, it is `${name}.js` next to the calling module (dist/). Run from TypeScript sources (vitest), it is the
 * compiled copy under dist/: Node 20 cannot start a worker from a `.ts` file, and `npm test` builds first. Null when
 * no compiled script exists (sources never built).
 *
 * @example compiledWorkerUrl(import.meta.url, 'gateway/recorder', 'record-worker')
 */
export function compiledWorkerUrl(moduleUrl: string, folder: string, name: string): URL | null {
  const up = '../'.repeat(folder.split('/').length);
  const compiled = moduleUrl.endsWith('.ts') ? new URL(`${up}dist/${folder}/${name}.js`, moduleUrl) : new URL(`./${name}.js`, moduleUrl);
  return existsSync(fileURLToPath(compiled)) ? compiled : null;
}
