import type { FastifyBaseLogger } from 'fastify';
import { isRecord } from '../../../core/json/is-record.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import type { BackendFleet, ReplicaLease, ReplicaSnapshot } from '../../backends/fleet/fleet-types.js';
import { readBackendBody } from '../../backends/read-backend-body.js';

/** One entry of an OpenAI model list, as a backend wrote it (vLLM adds `max_model_len`, `root`, `permission`, ...). */
export type ModelEntry = Record<string, unknown> & { id: string };

/**
 * The fleet's model list for `GET /v1/models`: the union of every replica's models (`fleet.models()`, config order),
 * each entry as a replica serving it reports it (one up replica is asked per distinct model list, in parallel),
 * else a minimal `{ id, object: 'model', created, owned_by }` when none could be asked or it did not list the model.
 *
 * @example const data = await fleetModelEntries(fleet, signal, request.log); // [{ id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 40960, ... }]
 */
export async function fleetModelEntries(fleet: BackendFleet, signal: AbortSignal, log: FastifyBaseLogger): Promise<ModelEntry[]> {
  const snapshots = fleet.snapshot();
  const asked = new Map<string, ReplicaSnapshot>();
  for (const replica of snapshots) {
    const key = [...replica.models].sort().join('\n');
    if (replica.state === 'up' && replica.models.length > 0 && !asked.has(key)) asked.set(key, replica);
  }
  const listed = await Promise.all([...asked.values()].map((replica) => listedBy(fleet, replica, snapshots, signal, log)));
  const reported = new Map<string, ModelEntry>();
  for (const entries of listed) for (const entry of entries) if (!reported.has(entry.id)) reported.set(entry.id, entry);
  const created = Math.floor(Date.now() / 1000);
  return fleet.models().map((id) => {
    const owner = snapshots.find((replica) => replica.models.includes(id));
    return reported.get(id) ?? { id, object: 'model', created, owned_by: owner?.flavour ?? 'tokentap' };
  });
}

/** What one replica's `/v1/models` lists of the models the fleet gives it; nothing when it cannot be asked. */
async function listedBy(
  fleet: BackendFleet,
  replica: ReplicaSnapshot,
  snapshots: readonly ReplicaSnapshot[],
  signal: AbortSignal,
  log: FastifyBaseLogger,
): Promise<ModelEntry[]> {
  // a replica of this model list: the others are excluded, so the fleet leases one of the same list (the least busy)
  const sameList = (other: ReplicaSnapshot): boolean => [...other.models].sort().join('\n') === [...replica.models].sort().join('\n');
  const exclude = new Set(snapshots.filter((other) => !sameList(other)).map((other) => other.id));
  let lease: ReplicaLease;
  try {
    lease = fleet.pick({ model: replica.models[0] ?? null, sessionId: null, exclude });
  } catch (error) {
    log.debug({ backend: replica.id, err: error }, 'no replica to ask for its model list');
    return [];
  }
  try {
    const response = await lease.client.get('/v1/models', signal);
    const { json } = await readBackendBody(response);
    if (response.statusCode >= 400 || !isRecord(json) || !Array.isArray(json.data)) {
      throw new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `/v1/models answered ${response.statusCode} without a model list` });
    }
    lease.release({ ok: true });
    return json.data.filter((entry): entry is ModelEntry => isRecord(entry) && typeof entry.id === 'string' && replica.models.includes(entry.id));
  } catch (error) {
    lease.release({ ok: false, code: error instanceof TokentapError ? error.code : 'TT_BACKEND_UNREACHABLE' });
    // the list is still answered, from the fleet's names: a harness probing models must not fail for one replica
    log.warn({ backend: lease.id, err: error }, 'a backend replica did not list its models; minimal entries listed');
    return [];
  }
}
