import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

let shared: Registry | null = null;

const CPU_TOTALS = ['process_cpu_user_seconds_total', 'process_cpu_system_seconds_total', 'process_cpu_seconds_total'] as const;

/**
 * prom-client's default process metrics (CPU, memory, event-loop lag, GC, handles), in one registry per process:
 * they describe the process, not a gateway, and each collector keeps a timer and a GC observer, so several
 * gateways in one process share them instead of each starting its own. Started on the first scrape.
 *
 * prom-client counts CPU from the moment its collectors start; the CPU spent before (start-up, calls served before
 * the first scrape) is added once, so `process_cpu_*_seconds_total` is the process's total, as Prometheus means it.
 *
 * @example const text = await processMetrics().metrics()
 */
export function processMetrics(): Registry {
  if (shared === null) {
    shared = new Registry();
    const before = process.cpuUsage();
    collectDefaultMetrics({ register: shared });
    const seconds = [before.user / 1e6, before.system / 1e6, (before.user + before.system) / 1e6];
    CPU_TOTALS.forEach((name, index) => {
      const counter = shared?.getSingleMetric(name);
      if (counter instanceof Counter) counter.inc(seconds[index] ?? 0);
    });
  }
  return shared;
}
