import { Counter, Gauge, type Registry } from 'prom-client';
import type { RolloutReadCache } from '../rollouts/rollout-read-cache.js';

/**
 * The rollout-row cache's metrics (gateway/rollouts/rollout-read-cache.ts), read at scrape time:
 * `tokentap_rollout_reads_total{from="store"|"memory"}` (each call's admission reads its session's row once) and
 * `tokentap_rollout_cache_live` (1 while the store announces session ends and rows are kept; 0 on SQLite, and on
 * PostgreSQL while the watch's connection is down: every call then reads the store).
 *
 * @example registerRolloutReadMetrics(metrics.registry, rollouts.reads);
 */
export function registerRolloutReadMetrics(registry: Registry, cache: RolloutReadCache): void {
  const registers = [registry];
  new Counter({
    name: 'tokentap_rollout_reads_total',
    help: "Calls' reads of their session's rollout row, by where the answer came from (store or memory)",
    labelNames: ['from'],
    registers,
    collect() {
      this.reset();
      const { reads, hits } = cache.counts;
      this.inc({ from: 'store' }, reads);
      this.inc({ from: 'memory' }, hits);
    },
  });
  new Gauge({
    name: 'tokentap_rollout_cache_live',
    help: 'Whether rollout rows are kept between calls (1: the store announces session ends; 0: every call reads the store)',
    registers,
    collect() {
      this.set(cache.counts.live ? 1 : 0);
    },
  });
}
