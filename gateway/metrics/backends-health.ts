import type { BackendFlavour, ReplicaSnapshot, ReplicaState } from '../backends/fleet/fleet-types.js';

/** One replica as `/healthz` shows it: no url, model name or key (the route is open), only its state and token ids. */
export interface ReplicaHealth {
  id: string;
  flavour: BackendFlavour;
  state: ReplicaState;
  /** whether it returns token ids: null until its probe could tell (it was unreachable, or the probe failed) */
  tokenIds: boolean | null;
  lastError: string | null;
}

/** The `backends` section of `/healthz`. */
export interface BackendsHealth {
  up: number;
  down: number;
  draining: number;
  /** replicas whose probe found no token ids: their calls would record `token_source: none` */
  withoutTokenIds: number;
  replicas: ReplicaHealth[];
}

/** What the fleet's state makes of the gateway's health: `unhealthy` when calls of some model would find no replica. */
export type BackendsVerdict = 'ok' | 'degraded' | 'unhealthy';

/**
 * The fleet on `/healthz` (issue 15): counts by state, each replica's state and token ids, and the verdict:
 * `unhealthy` when no replica is up, or a model's pool (the replicas listing it, and those whose models are not known
 * yet) has none up, since its calls would fail; `degraded` when a replica is down or returns no token ids;
 * `ok` otherwise. A draining replica alone is the operator's choice, not a fault.
 *
 * @example backendsHealth(fleet.snapshot()) // { verdict: 'degraded', section: { up: 1, down: 1, ... } }
 */
export function backendsHealth(snapshots: readonly ReplicaSnapshot[]): { verdict: BackendsVerdict; section: BackendsHealth } {
  const count = (state: ReplicaState): number => snapshots.filter((replica) => replica.state === state).length;
  const section: BackendsHealth = {
    up: count('up'),
    down: count('down'),
    draining: count('draining'),
    withoutTokenIds: snapshots.filter((replica) => replica.capabilities.returnsTokenIds === false).length,
    replicas: snapshots.map((replica) => ({
      id: replica.id,
      flavour: replica.flavour,
      state: replica.state,
      tokenIds: replica.capabilities.returnsTokenIds,
      lastError: replica.lastError,
    })),
  };
  const models = new Set(snapshots.flatMap((replica) => replica.models));
  const poolWithoutReplicaUp = [...models].some(
    (model) => !snapshots.some((replica) => replica.state === 'up' && (replica.models.includes(model) || replica.models.length === 0)),
  );
  if (section.up === 0 || poolWithoutReplicaUp) return { verdict: 'unhealthy', section };
  return { verdict: section.down > 0 || section.withoutTokenIds > 0 ? 'degraded' : 'ok', section };
}
