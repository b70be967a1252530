import { isRecord } from '../../../core/json/is-record.js';
import type { BackendClient } from '../vllm.js';
import type { BackendFlavour, BackendSpec, ReplicaCapabilities } from './fleet-types.js';
import { healthError } from './check-replica-health.js';
import { probeRequest, type ProbeAnswer } from './probe-request.js';
import { probeTokenIds, type TokenIdsProbe } from './probe-token-ids.js';

/** What asking a replica once learned (`BackendFleet.start()`, and again each time it comes back up). */
export interface ReplicaProbe {
  /** `GET /health` answered 2xx */
  healthy: boolean;
  /** why it is not healthy, in words; null when it is */
  error: string | null;
  capabilities: ReplicaCapabilities;
  /** `/v1/models` answered, so `capabilities.models` is what the replica serves (else that is still unknown) */
  modelsListed: boolean;
}

/** What a replica's server says it is: SGLang's `/get_server_info` or vLLM's `/version`. */
interface ServerIdentity {
  flavour: BackendFlavour;
  version: string | null;
  incrementalStreaming: boolean;
}

/**
 * Asks one replica, all at once and within `signal`: `GET /health`; its flavour and version (SGLang's
 * `GET /get_server_info` is its server args with `version` and `incremental_streaming_output`, `/server_info` in
 * newer builds; vLLM's `GET /version` is `{"version"}`); its models (`GET /v1/models`); then, when healthy, whether it
 * returns token ids (one token, probeTokenIds). Never throws: an unreachable replica is `healthy: false` with the error.
 *
 * @example
 * const probe = await probeReplica(client, { spec, signal: AbortSignal.timeout(5000) });
 * if (!probe.healthy) log.warn({ backend: spec.id, error: probe.error }, 'backend replica down at start');
 */
export async function probeReplica(
  client: BackendClient,
  input: {
    spec: BackendSpec;
    signal: AbortSignal;
    /** what an earlier probe learned of its token ids: not asked again */ tokenIds?: TokenIdsProbe | undefined;
  },
): Promise<ReplicaProbe> {
  const { spec, signal } = input;
  const [health, serverInfo, version, models] = await Promise.all([
    probeRequest(client, '/health', signal),
    probeRequest(client, '/get_server_info', signal),
    probeRequest(client, '/version', signal),
    probeRequest(client, '/v1/models', signal),
  ]);
  let identity = sglangIdentity(serverInfo) ?? vllmIdentity(version);
  // SGLang after the rename keeps /get_server_info as a deprecated alias of /server_info; ask the new name when the old is gone
  if (identity === null && health.ok) identity = sglangIdentity(await probeRequest(client, '/server_info', signal));
  const listed = modelIds(models);
  const capabilities: ReplicaCapabilities = {
    version: identity?.version ?? null,
    detectedFlavour: identity?.flavour ?? null,
    models: listed ?? [],
    returnsTokenIds: null,
    tokenIdsNote: null,
    incrementalStreaming: identity?.incrementalStreaming ?? false,
  };
  const error = healthError(health);
  if (error !== null) return { healthy: false, error, capabilities, modelsListed: listed !== null };
  const flavour = spec.detectFlavour === true && identity !== null ? identity.flavour : spec.flavour;
  const model = spec.models[0] ?? listed?.[0] ?? null;
  Object.assign(capabilities, input.tokenIds ?? (await probeTokenIds(client, { flavour, version: capabilities.version, model, signal })));
  return { healthy: true, error: null, capabilities, modelsListed: listed !== null };
}

function sglangIdentity(answer: ProbeAnswer): ServerIdentity | null {
  if (!answer.ok || answer.status !== 200 || !isRecord(answer.json)) return null;
  const info = answer.json;
  // the server args are spread into the answer: model_path is always among them
  if (typeof info.version !== 'string' || typeof info.model_path !== 'string') return null;
  return { flavour: 'sglang', version: info.version, incrementalStreaming: info.incremental_streaming_output === true };
}

function vllmIdentity(answer: ProbeAnswer): ServerIdentity | null {
  if (!answer.ok || answer.status !== 200 || !isRecord(answer.json) || typeof answer.json.version !== 'string') return null;
  return { flavour: 'vllm', version: answer.json.version, incrementalStreaming: false };
}

/** `/v1/models`' ids, in its order; null when it did not answer a model list. */
function modelIds(answer: ProbeAnswer): string[] | null {
  if (!answer.ok || answer.status !== 200 || !isRecord(answer.json) || !Array.isArray(answer.json.data)) return null;
  const ids: string[] = [];
  for (const card of answer.json.data) if (isRecord(card) && typeof card.id === 'string') ids.push(card.id);
  return ids;
}
