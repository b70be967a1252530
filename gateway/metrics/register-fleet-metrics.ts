import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BackendFleet, ReplicaState } from '../backends/fleet/fleet-types.js';

const FIRST_TOKEN_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const STATES: readonly ReplicaState[] = ['up', 'down', 'draining'];

/**
 * The per-replica metrics of a fleet on a gateway's registry, each labelled `backend` (the replica id; issue 15,
 * "Metrics per replica"): calls in flight, calls ended and errors by code, sessions pinned, the state (one gauge per
 * state, 1 for the current), whether it returns token ids (absent until probed), read from `fleet.snapshot()` at
 * scrape time; time to first token (histogram) and completion tokens (counter: tokens/s is its `rate()`) fed by
 * `fleet.observeCall`. Returns the function that stops the feed (the registry keeps the metrics).
 *
 * @example
 * registerFleetMetrics(metrics.registry, fleet);
 * // rate(tokentap_backend_completion_tokens_total{backend="vllm-2"}[1m]) is vllm-2's tokens per second
 */
export function registerFleetMetrics(registry: Registry, fleet: BackendFleet): () => void {
  const registers = [registry];
  new Gauge({
    name: 'tokentap_backend_calls_in_flight',
    help: 'Attempts sent to the replica and not ended',
    labelNames: ['backend'],
    registers,
    collect() {
      for (const replica of fleet.snapshot()) this.set({ backend: replica.id }, replica.inFlight);
    },
  });
  new Counter({
    name: 'tokentap_backend_calls_total',
    help: 'Attempts the replica served to their end (failed ones included)',
    labelNames: ['backend'],
    registers,
    collect() {
      this.reset();
      for (const replica of fleet.snapshot()) this.inc({ backend: replica.id }, replica.calls);
    },
  });
  new Counter({
    name: 'tokentap_backend_errors_total',
    help: 'Attempts on the replica that ended in an error, by code (TT_BACKEND_UNREACHABLE, TT_BACKEND_ERROR, ...)',
    labelNames: ['backend', 'code'],
    registers,
    collect() {
      this.reset();
      for (const replica of fleet.snapshot()) {
        for (const [code, count] of Object.entries(replica.errors)) this.inc({ backend: replica.id, code }, count);
      }
    },
  });
  new Gauge({
    name: 'tokentap_backend_sessions_pinned',
    help: 'Sessions whose next call goes to the replica',
    labelNames: ['backend'],
    registers,
    collect() {
      for (const replica of fleet.snapshot()) this.set({ backend: replica.id }, replica.sessionsPinned);
    },
  });
  new Gauge({
    name: 'tokentap_backend_state',
    help: "1 for the replica's state (up, down, draining), 0 for the others",
    labelNames: ['backend', 'state'],
    registers,
    collect() {
      for (const replica of fleet.snapshot()) {
        for (const state of STATES) this.set({ backend: replica.id, state }, replica.state === state ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'tokentap_backend_returns_token_ids',
    help: 'Whether the replica returned token ids to the start-up probe (1 or 0; absent until it answered)',
    labelNames: ['backend'],
    registers,
    collect() {
      this.reset();
      for (const replica of fleet.snapshot()) {
        const returns = replica.capabilities.returnsTokenIds;
        if (returns !== null) this.set({ backend: replica.id }, returns ? 1 : 0);
      }
    },
  });
  const firstToken = new Histogram({
    name: 'tokentap_backend_time_to_first_token_seconds',
    help: "Time from acceptance to the first byte of the replica's answer (streams: its first chunk)",
    labelNames: ['backend'],
    buckets: FIRST_TOKEN_BUCKETS,
    registers,
  });
  const completionTokens = new Counter({
    name: 'tokentap_backend_completion_tokens_total',
    help: 'Completion tokens the replica generated for recorded calls (tokens per second: its rate)',
    labelNames: ['backend'],
    registers,
  });
  return fleet.onCallObserved((backend, observation) => {
    if (observation.timeToFirstTokenMs !== null) firstToken.observe({ backend }, observation.timeToFirstTokenMs / 1000);
    if (observation.completionTokens > 0) completionTokens.inc({ backend }, observation.completionTokens);
  });
}
