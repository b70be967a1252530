import { expect, it, vi } from 'vitest';
import { sampleValue } from './metric-value.js';

function burnCpu(ms: number): void {
  const until = process.cpuUsage().user + ms * 1000;
  let x = 0;
  while (process.cpuUsage().user < until) x += Math.sqrt(x + 1);
  expect(x).toBeGreaterThan(0);
}

it('reports the CPU the process spent before the first scrape, as Prometheus process_cpu_* totals mean', async () => {
  vi.resetModules();
  burnCpu(150);
  const spent = process.cpuUsage();
  const { processMetrics } = await import('../../../gateway/metrics/process-metrics.js');
  const text = await processMetrics().metrics();
  expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(spent.user / 1e6);
  expect(sampleValue(text, 'process_cpu_system_seconds_total')).toBeGreaterThanOrEqual(spent.system / 1e6);
  expect(sampleValue(text, 'process_cpu_seconds_total')).toBeGreaterThanOrEqual((spent.user + spent.system) / 1e6);
});
