import { compiledWorkerUrl } from '../../core/worker/compiled-worker-url.js';

/**
 * Where the recording worker's script is (core/worker/compiled-worker-url.ts). Returns null when no compiled worker
 * exists (sources never built); the gateway then records on its own thread and says so.
 *
 * @example new Worker(recordWorkerUrl(import.meta.url) ?? fail())
 */
export function recordWorkerUrl(moduleUrl: string = import.meta.url): URL | null {
  return compiledWorkerUrl(moduleUrl, 'gateway/recorder', 'record-worker');
}
