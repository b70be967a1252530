import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the recording worker's script is. Built, it is `record-worker.js` next to this module (dist/). Run from
 * TypeScript sources (vitest), it is the compiled copy under dist/: Node 20 cannot start a worker from a `.ts`
 * file, and `npm test` builds first. Returns null when no compiled worker exists (sources never built); the
 * gateway then records on its own thread and says so.
 *
 * @example new Worker(recordWorkerUrl(import.meta.url) ?? fail())
 */
export function recordWorkerUrl(moduleUrl: string = import.meta.url): URL | null {
  const compiled = moduleUrl.endsWith('.ts')
    ? new URL('../../dist/gateway/recorder/record-worker.js', moduleUrl)
    : new URL('./record-worker.js', moduleUrl);
  return existsSync(fileURLToPath(compiled)) ? compiled : null;
}
