/**
 * The store's shared contracts: what the gateway's recorder writes and what reconstruct/ and the CLI read.
 * Defined once here and described in docs/architecture.md.
 */

/**
 * Lifecycle of one recorded call.
 * - `in_progress`: row inserted when the request was accepted, not finished yet.
 * - `ok`: the backend answered in full and the harness was sent the whole response.
 * - `backend_error`: the backend refused, failed, timed out or sent something unusable.
 * - `aborted`: the harness went away before the response was complete; the backend request was cancelled.
 * - `incomplete`: an `in_progress` row found at start-up (the process died mid-call).
 */
export type CallStatus = 'in_progress' | 'ok' | 'backend_error' | 'aborted' | 'incomplete';

export const CALL_STATUSES: readonly CallStatus[] = ['in_progress', 'ok', 'backend_error', 'aborted', 'incomplete'];

/**
 * Where a call's token ids came from.
 * - `backend`: ids the backend returned (vLLM `return_token_ids`), trusted as exact.
 * - `none`: the backend returned no ids; nothing token-level is recorded for this call.
 */
export type TokenSource = 'backend' | 'none';

/** A flag on a call that makes its token data untrustworthy or notable; never silently dropped. */
export type CallFlag =
  /** joined completion ids disagree with `usage.completion_tokens` (old vLLM drops tool-call ids when streaming) */
  | 'completion_ids_mismatch_usage'
  /** number of logprobs differs from number of completion ids */
  | 'logprobs_length_mismatch'
  /** prompt ids disagree with `usage.prompt_tokens` */
  | 'prompt_ids_mismatch_usage'
  /** the backend sent no prompt ids although completion ids came */
  | 'prompt_ids_missing';

export interface SessionRow {
  id: string;
  createdAt: number;
  /** free-form JSON metadata (harness, tags, ...) */
  metadata: Record<string, unknown>;
  callCount: number;
  promptTokens: number;
  completionTokens: number;
  /** count of calls per status */
  statusCounts: Partial<Record<CallStatus, number>>;
  lastCallAt: number | null;
}

/** Written when a call is accepted (before the backend is asked). */
export interface BeginCallInput {
  /** the call's id when the caller chose it (the gateway does, to write the row off the hot path); else a random UUID */
  callId?: string;
  sessionId: string;
  /** which front door: 'openai-chat' | 'openai-completions' | 'openai-responses' | 'anthropic-messages' */
  frontDoor: string;
  /** request path as received, without query string */
  path: string;
  /** the model name the harness asked for */
  requestedModel: string | null;
  /** the model name sent to the backend (after `--model` override) */
  backendModel: string | null;
  stream: boolean;
  /** the harness's request body, parsed JSON, as received */
  requestBody: unknown;
  /** the body actually sent to the backend */
  backendRequestBody: unknown;
  /** sampling parameters as sent (temperature, top_p, top_k, max_tokens, seed, ...) */
  samplingParams: Record<string, unknown>;
  /** harness headers kept as metadata (session ids, user agent, ...), secrets never included */
  metadata: Record<string, unknown>;
  /** wall clock (ms since epoch) when the request was accepted */
  startedAt: number;
  /** policy version the call is served under, if any */
  policyVersion?: string | null;
}

/** Written once when a call ends, whatever its status. */
export interface FinishCallInput {
  status: Exclude<CallStatus, 'in_progress' | 'incomplete'>;
  tokenSource: TokenSource;
  /** full prompt ids exactly as the backend sent them, or null when none came */
  promptTokenIds: number[] | Int32Array | null;
  /** sampled ids, EOS included when sampled; for aborted calls the ids received so far */
  completionTokenIds: number[] | Int32Array | null;
  /** one logprob per completion id, or null when none came */
  completionLogprobs: number[] | Float32Array | null;
  finishReason: string | null;
  /** vLLM stop_reason (matched stop string or token id), null = EOS */
  stopReason: string | number | null;
  /** the response body: for non-streaming the backend's JSON; for streaming the assembled equivalent */
  responseBody: unknown;
  /** the raw upstream SSE text for streaming calls (kept compressed), or null */
  responseStream?: string | null;
  /** usage as reported by the backend */
  usage: { promptTokens?: number; completionTokens?: number } | null;
  /** the backend's error (status, body or message), null when ok */
  error: { httpStatus?: number; code?: string; message: string; body?: unknown } | null;
  httpStatus: number | null;
  flags: CallFlag[];
  /** ms from start to first byte/token from the backend, null if none */
  timeToFirstTokenMs: number | null;
  /** ms from start to end */
  totalMs: number;
  endedAt: number;
}

/** A call read back from the store. */
export interface CallRow {
  id: string;
  sessionId: string;
  /** 1-based order of the call inside its session (by acceptance, not clocks) */
  seq: number;
  frontDoor: string;
  path: string;
  requestedModel: string | null;
  backendModel: string | null;
  stream: boolean;
  status: CallStatus;
  tokenSource: TokenSource | null;
  promptTokenIds: Int32Array | null;
  completionTokenIds: Int32Array | null;
  completionLogprobs: Float32Array | null;
  finishReason: string | null;
  stopReason: string | number | null;
  samplingParams: Record<string, unknown>;
  metadata: Record<string, unknown>;
  usage: { promptTokens?: number; completionTokens?: number } | null;
  error: { httpStatus?: number; code?: string; message: string; body?: unknown } | null;
  httpStatus: number | null;
  flags: CallFlag[];
  policyVersion: string | null;
  startedAt: number;
  endedAt: number | null;
  timeToFirstTokenMs: number | null;
  totalMs: number | null;
}

/** A call with its stored bodies (read separately: they are large). */
export interface CallBodies {
  requestBody: unknown;
  backendRequestBody: unknown;
  responseBody: unknown;
  responseStream: string | null;
}

export interface StoreStats {
  sessions: number;
  calls: number;
  /** bytes of the database file(s) on disk (main + WAL) */
  bytesOnDisk: number;
}

export interface OpenStoreOptions {
  /** database file path; ':memory:' for an in-memory store */
  path: string;
  /** open read-only (CLI inspection commands) */
  readonly?: boolean;
}

/**
 * The repository: the only way any module touches the database.
 * All writes are synchronous (better-sqlite3) and each is one transaction.
 */
export interface Store {
  /** creates the session if it does not exist; returns true when it was created */
  ensureSession(sessionId: string, metadata?: Record<string, unknown>): boolean;
  getSession(sessionId: string): SessionRow | null;
  listSessions(options?: { limit?: number; offset?: number }): SessionRow[];
  /** inserts an `in_progress` call with the next per-session sequence number; creates the session if needed */
  beginCall(input: BeginCallInput): { callId: string; seq: number };
  /** finishes a call: one transaction, committed when this returns */
  finishCall(callId: string, result: FinishCallInput): void;
  getCall(callId: string): CallRow | null;
  getCallBodies(callId: string): CallBodies | null;
  /** calls of a session ordered by seq */
  listCalls(sessionId: string): CallRow[];
  /**
   * Runs several writes as one transaction (each write inside becomes a savepoint): one commit for a batch
   * of calls instead of one per call. A write that throws inside rolls back alone if the caller catches it.
   */
  batch<T>(work: () => T): T;
  /** marks every `in_progress` call `incomplete` (run at start-up); returns how many */
  markInProgressIncomplete(): number;
  stats(): StoreStats;
  /** `PRAGMA integrity_check` output: 'ok' for a sound file, else one line per problem */
  integrityCheck(): string;
  close(): void;
}
