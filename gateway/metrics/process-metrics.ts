import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | null = null;

/**
 * prom-client's default process metrics (CPU, memory, event-loop lag, GC, handles), in one registry per process:
 * they describe the process, not a gateway, and each collector keeps a timer and a GC observer, so several
 * gateways in one process share them instead of each starting its own. Started on the first scrape.
 *
 * @example const text = await processMetrics().metrics()
 */
export function processMetrics(): Registry {
  if (shared === null) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
