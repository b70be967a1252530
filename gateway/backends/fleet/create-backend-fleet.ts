import { TokentapError } from '../../../core/errors/tokentap-error.js';
import type { BackendClient } from '../vllm.js';
import { createFleetReplica, replicaSnapshot, servedModels, type FleetReplica } from './fleet-replica.js';
import { SILENT_FLEET_LOGGER, type FleetLogger } from './fleet-logger.js';
import type { BackendAffinity, BackendFleet, BackendSpec, CallObservation, PickInput, ReplicaLease } from './fleet-types.js';
import { leaseReplica } from './lease-replica.js';
import { leastInFlightPick } from './least-in-flight-pick.js';
import { createReplicaHealth } from './replica-health.js';
import { rendezvousPick } from './rendezvous-pick.js';
import { selectPool } from './select-pool.js';
import { createSessionPins } from './session-pins.js';

export const DEFAULT_HEALTH_INTERVAL_MS = 5000;
export const DEFAULT_PROBE_TIMEOUT_MS = 5000;
export const DEFAULT_PIN_LIMIT = 100_000;

export interface BackendFleetOptions {
  /** the replicas, in config order (ids unique) */
  specs: BackendSpec[];
  /** the HTTP client of one replica (createVllmBackend with the gateway's timeouts and the spec's url and key) */
  createClient: (spec: BackendSpec) => BackendClient;
  /** the gateway's pino logger; default silent */
  logger?: FleetLogger | undefined;
  /** ms between health checks of every replica; default 5000 */
  healthIntervalMs?: number | undefined;
  /** ms a start-up probe or a health check of one replica may take; default 5000 */
  probeTimeoutMs?: number | undefined;
  /** sessions remembered with their replica, the least recently used forgotten first; default 100 000 */
  pinLimit?: number | undefined;
  /** `session` (default): a session's calls on one replica; `none`: every call to the least busy, ties in turn */
  affinity?: BackendAffinity | undefined;
}

/**
 * Every backend replica of a gateway (docs/backends.md, "Routing"): one pool per model, a session kept on one replica
 * (pinned, else placed by rendezvous hashing of its id over the pool's replicas in service), a call without a session
 * to the least busy, a failed replica out until a health check finds it back, a drained one given no new calls.
 * `affinity: 'none'` places every call as one without a session (the round-robin baseline of bench/load.ts --replicas).
 *
 * @example
 * const fleet = createBackendFleet({ specs, createClient: (spec) => createVllmBackend({ backendUrl: spec.url, ... }), logger });
 * await fleet.start();
 * const lease = fleet.pick({ model: 'Qwen/Qwen3-8B', sessionId: 'rollout-7', exclude: new Set() });
 * try { await lease.client.postJson('/v1/chat/completions', body, signal) } finally { lease.release({ ok: true }) }
 */
export function createBackendFleet(options: BackendFleetOptions): BackendFleet {
  checkSpecs(options.specs);
  const logger = options.logger ?? SILENT_FLEET_LOGGER;
  const replicas = options.specs.map((spec, index) => createFleetReplica(spec, index, options.createClient(spec)));
  const byId = new Map(replicas.map((replica) => [replica.id, replica]));
  const pins = createSessionPins(options.pinLimit ?? DEFAULT_PIN_LIMIT);
  /** per pool, the config index the last least-in-flight call went to (round robin among the least busy) */
  const turns = new Map<string, number>();
  const listeners = new Set<(id: string, observation: CallObservation) => void>();
  const closing = new AbortController();
  let started: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  const health = createReplicaHealth({ logger, pins, probeTimeoutMs: options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, closing: closing.signal });

  function find(id: string): FleetReplica {
    const replica = byId.get(id);
    if (replica !== undefined) return replica;
    throw new TokentapError('TT_BACKEND_NOT_FOUND', { message: `No backend replica '${id}' (replicas: ${[...byId.keys()].join(', ')})` });
  }

  function pick(input: PickInput): ReplicaLease {
    const pool = selectPool(replicas, input.model);
    const candidates = pool.replicas.filter((replica) => !replica.draining && !input.exclude.has(replica.id));
    if (candidates.length === 0) throw unavailable(input, pool.replicas);
    const usable = candidates.filter((replica) => replica.healthy);
    // none up: the one down longest is tried all the same (the checks may not have seen it back; one backend restarting)
    if (usable.length === 0)
      return leaseReplica(candidates.reduce((longest, replica) => (replica.downSince < longest.downSince ? replica : longest)));
    if (input.sessionId === null || options.affinity === 'none') {
      const chosen = leastInFlightPick(usable, turns.get(pool.key) ?? -1)!;
      turns.set(pool.key, chosen.index);
      return leaseReplica(chosen);
    }
    const key = `${pool.key}\u0000${input.sessionId}`;
    const kept = usable.find((replica) => replica.id === pins.get(key));
    if (kept !== undefined) return leaseReplica(kept);
    const placed = byId.get(
      rendezvousPick(
        input.sessionId,
        usable.map((replica) => replica.id),
      )!,
    )!;
    pins.set(key, placed.id);
    return leaseReplica(placed);
  }

  return {
    start() {
      started ??= (async () => {
        await Promise.all(replicas.map(health.probeAtStart));
        if (closing.signal.aborted) return;
        timer = setInterval(() => void Promise.all(replicas.map(health.checkOne)), options.healthIntervalMs ?? DEFAULT_HEALTH_INTERVAL_MS);
        timer.unref();
      })();
      return started;
    },
    pick,
    markFailed(id, reason) {
      const replica = byId.get(id);
      if (replica !== undefined) health.takeDown(replica, reason);
    },
    drain(id) {
      const replica = find(id);
      if (!replica.draining) {
        replica.draining = true;
        const sessionsMoved = pins.unpinReplica(id);
        logger.info({ backend: id, inFlight: replica.inFlight, sessionsMoved }, 'backend replica drained: no new calls');
      }
      return replicaSnapshot(replica, pins.countFor(id));
    },
    async undrain(id) {
      const replica = find(id);
      if (!replica.healthy) await health.checkOne(replica);
      if (replica.draining) {
        replica.draining = false;
        logger.info({ backend: id, state: replica.healthy ? 'up' : 'down' }, 'backend replica undrained: back in service');
      }
      return replicaSnapshot(replica, pins.countFor(id));
    },
    models: () => [...new Set(replicas.flatMap((replica) => servedModels(replica)))],
    snapshot: () => replicas.map((replica) => replicaSnapshot(replica, pins.countFor(replica.id))),
    observeCall(id, observation) {
      if (!byId.has(id)) return;
      for (const listener of listeners) listener(id, observation);
    },
    onCallObserved(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    checkHealth: () => Promise.all(replicas.map(health.checkOne)).then(() => undefined),
    async close() {
      closing.abort();
      if (timer !== null) clearInterval(timer);
      await Promise.all(replicas.map((replica) => replica.client.close()));
    },
  };
}

function unavailable(input: PickInput, pool: readonly FleetReplica[]): TokentapError {
  const states = pool.map((replica) => {
    const health = replica.healthy ? '' : `, down (${replica.lastError ?? 'health check failed'})`;
    return `${replica.id} ${input.exclude.has(replica.id) ? 'failed this call' : 'draining'}${health}`;
  });
  const model = input.model === null ? '' : ` for model '${input.model}'`;
  return new TokentapError('TT_BACKEND_UNAVAILABLE', { message: `No backend replica is available${model}: ${states.join('; ')}` });
}

function checkSpecs(specs: readonly BackendSpec[]): void {
  if (specs.length === 0) throw new TokentapError('TT_INVALID_ARGUMENT', { message: 'A backend fleet needs at least one replica' });
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.id))
      throw new TokentapError('TT_INVALID_ARGUMENT', { message: `Two backend replicas are named '${spec.id}': ids must be unique` });
    seen.add(spec.id);
  }
}
