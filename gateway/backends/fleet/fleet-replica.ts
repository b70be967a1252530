import type { BackendClient } from '../vllm.js';
import type { BackendFlavour, BackendSpec, ReplicaCapabilities, ReplicaSnapshot } from './fleet-types.js';

/** What is known of a replica before its probe answers (and of a call sent to no replica): nothing. */
export const UNKNOWN_CAPABILITIES: ReplicaCapabilities = {
  version: null,
  detectedFlavour: null,
  models: [],
  returnsTokenIds: null,
  tokenIdsNote: null,
  incrementalStreaming: false,
};

/** One replica as the fleet keeps it: its spec and client, its health and drain, its counts. */
export interface FleetReplica {
  readonly id: string;
  readonly spec: BackendSpec;
  /** its place in the config, 0-based (round robin and `models()` go in this order) */
  readonly index: number;
  readonly client: BackendClient;
  /** the configured flavour, or the detected one where `spec.detectFlavour` */
  flavour: BackendFlavour;
  healthy: boolean;
  draining: boolean;
  lastError: string | null;
  /** when it went down, as the order of the fleet's downs (lower: down longer); 0 while it never was */
  downSince: number;
  /** moves on every health change, so a check begun before one is not applied after it */
  epoch: number;
  /** `spec.models` is given or `/v1/models` answered: what it serves is known (else it is in every pool that has no replica) */
  modelsKnown: boolean;
  capabilities: ReplicaCapabilities;
  inFlight: number;
  calls: number;
  errors: Record<string, number>;
  /** the health check running now, and the epoch it began in */
  checking: { epoch: number; done: Promise<void> } | null;
}

/**
 * A replica before its first probe: up (a call that fails takes it out), its models those of the spec.
 *
 * @example const replica = createFleetReplica(spec, 0, createClient(spec));
 */
export function createFleetReplica(spec: BackendSpec, index: number, client: BackendClient): FleetReplica {
  return {
    id: spec.id,
    spec,
    index,
    client,
    flavour: spec.flavour,
    healthy: true,
    draining: false,
    lastError: null,
    downSince: 0,
    epoch: 0,
    modelsKnown: spec.models.length > 0,
    capabilities: { ...UNKNOWN_CAPABILITIES },
    inFlight: 0,
    calls: 0,
    errors: {},
    checking: null,
  };
}

/** The model names a replica serves: its spec's, else what its `/v1/models` listed (empty while unknown). */
export function servedModels(replica: FleetReplica): string[] {
  return replica.spec.models.length > 0 ? replica.spec.models : replica.capabilities.models;
}

/**
 * The replica as /healthz, the backends API and `tokentap backends` show it.
 *
 * @example replicaSnapshot(replica, pins.countFor(replica.id)).state // 'up'
 */
export function replicaSnapshot(replica: FleetReplica, sessionsPinned: number): ReplicaSnapshot {
  return {
    id: replica.id,
    flavour: replica.flavour,
    url: replica.client.url,
    models: [...servedModels(replica)],
    state: !replica.healthy ? 'down' : replica.draining ? 'draining' : 'up',
    draining: replica.draining,
    lastError: replica.healthy ? null : replica.lastError,
    inFlight: replica.inFlight,
    calls: replica.calls,
    errors: { ...replica.errors },
    sessionsPinned,
    capabilities: { ...replica.capabilities, models: [...replica.capabilities.models] },
  };
}
