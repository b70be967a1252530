import type { BackendClient } from '../vllm.js';

/** Which server a replica is: vLLM, or SGLang (docs/backends.md says what each returns and how it is asked). */
export type BackendFlavour = 'vllm' | 'sglang';

/**
 * How a fleet places the calls of a session: `session` keeps them on one replica (its prefix cache), `none` sends
 * every call to the least busy replica, ties in turn (round robin), as if it had no session: the baseline
 * bench/load.ts compares stickiness against.
 */
export type BackendAffinity = 'session' | 'none';

/** One backend replica as configured (`--backend sglang=http://10.0.0.3:30000`, or an entry of the config file's `backends`). */
export interface BackendSpec {
  /** stable name in metrics, logs, the store and the drain API; default `<flavour>-<n>` (1-based, in config order) */
  id: string;
  flavour: BackendFlavour;
  /** e.g. http://10.0.0.3:30000 (a trailing /v1 is accepted and dropped) */
  url: string;
  /** model names this replica serves; empty: what its `/v1/models` lists at the start-up probe */
  models: string[];
  /** sent as `Authorization: Bearer`; default the gateway's `backendKey` */
  key?: string | undefined;
  /** the start-up probe's detected flavour replaces `flavour` (the single `--backend-url` replica, whose flavour nobody gave) */
  detectFlavour?: boolean;
}

/** What the start-up probe (and each later health check) learned of a replica. */
export interface ReplicaCapabilities {
  /** the server's own version string, when it says (`/version` on vLLM, `/get_server_info` on SGLang) */
  version: string | null;
  /** the flavour the server's answers look like (a mismatch with the configured one is logged loudly) */
  detectedFlavour: BackendFlavour | null;
  /** model names from `/v1/models` */
  models: string[];
  /** null until probed; false: the server answered without token ids (calls would record `token_source: none`) */
  returnsTokenIds: boolean | null;
  /** why `returnsTokenIds` is false or null, in words, for /healthz and `tokentap backends` */
  tokenIdsNote: string | null;
  /** SGLang: `/generate` streams send only the new ids per chunk (`--incremental-streaming-output`); cumulative otherwise */
  incrementalStreaming: boolean;
}

export type ReplicaState = 'up' | 'down' | 'draining';

/** One replica's state for /healthz, `GET /tokentap/v1/backends` and `tokentap backends`. */
export interface ReplicaSnapshot {
  id: string;
  flavour: BackendFlavour;
  url: string;
  models: string[];
  state: ReplicaState;
  /** drained by the operator (`state` says `down` rather than `draining` while a drained replica also fails its health checks) */
  draining: boolean;
  /** the last health check's or call's failure, in words; null while up */
  lastError: string | null;
  inFlight: number;
  calls: number;
  /** errors by code (TT_BACKEND_UNREACHABLE, TT_BACKEND_ERROR, ...) */
  errors: Record<string, number>;
  /** sessions whose next call goes here */
  sessionsPinned: number;
  capabilities: ReplicaCapabilities;
}

/** A replica chosen for one attempt of one call. `release()` once the attempt's answer has ended (or failed). */
export interface ReplicaLease {
  id: string;
  flavour: BackendFlavour;
  client: BackendClient;
  capabilities: ReplicaCapabilities;
  /** ends the attempt: in-flight count down, and the outcome counted (`ok`, or an error code) */
  release(outcome: { ok: true } | { ok: false; code: string }): void;
}

/** One call's timing and tokens on the replica that served it (`observeCall`). */
export interface CallObservation {
  /** ms to the first byte of the backend's answer (streams: its first chunk); null when none came */
  timeToFirstTokenMs: number | null;
  totalMs: number;
  completionTokens: number;
}

/** How one call asks for a replica. */
export interface PickInput {
  /** the model name sent to the backend (after `--model`); null: the only pool, or the first */
  model: string | null;
  /** the call's session: every call of a session goes to one replica while it is up (its prefix cache) */
  sessionId: string | null;
  /** replicas that already failed this call (connection refused, 5xx before the first byte) */
  exclude: ReadonlySet<string>;
}

/**
 * Every backend replica of the gateway, in one pool per model (docs/backends.md): a session sticks to one replica
 * (rendezvous hashing of its id over the pool's usable replicas, then pinned while that replica is up), a call
 * without a session goes to the least busy one, a replica that fails is taken out until a health check finds it
 * back, and a drained one takes no new calls.
 */
export interface BackendFleet {
  /** asks each replica once (flavour, version, models, whether it returns token ids) and starts the health checks */
  start(): Promise<void>;
  /**
   * A replica for one attempt. Throws TokentapError `TT_MODEL_NOT_FOUND` (404) when no pool serves `model`, and
   * `TT_BACKEND_UNAVAILABLE` (503) when its pool has no undrained replica outside `exclude`. Replicas up come first;
   * when none of the pool's undrained replicas outside `exclude` is up, a down one is leased all the same (the one
   * down longest first): the health checks may not have seen it come back, and a single-replica gateway must keep
   * trying its backend (the caller's retry policy bounds the attempts).
   */
  pick(input: PickInput): ReplicaLease;
  /** a replica failed before its answer started (refused, reset, 5xx): out of its pools, its sessions moved, until a health check passes */
  markFailed(id: string, reason: string): void;
  /** no new calls (in-flight ones finish) and its sessions move; for weight reloads and maintenance. Throws `TT_BACKEND_NOT_FOUND` (404) */
  drain(id: string): ReplicaSnapshot;
  /** back in service (its health is checked first when it was down). Throws `TT_BACKEND_NOT_FOUND` (404) */
  undrain(id: string): Promise<ReplicaSnapshot>;
  /** the union of every replica's model names, in config order */
  models(): string[];
  snapshot(): ReplicaSnapshot[];
  /** a call's timing and tokens, for the per-replica metrics (time to first token, tokens/s) */
  observeCall(id: string, observation: CallObservation): void;
  /** `listener` hears every `observeCall` (the per-replica metrics' histogram); returns the function that stops it */
  onCallObserved(listener: (id: string, observation: CallObservation) => void): () => void;
  /** one health check of every replica now (`GET /health`; a replica back up is probed again); the interval runs the same */
  checkHealth(): Promise<void>;
  /** stops the health checks and closes every replica's connections */
  close(): Promise<void>;
}
