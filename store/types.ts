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
 * - `incomplete`: an `in_progress` row whose end was never recorded: found at start-up (the process died mid-call),
 *   or marked by a running gateway that could not write the end (a full disk; see docs/reliability.md).
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
  | 'prompt_ids_missing'
  /**
   * the backend sent a number that is no token id (negative, 2^31 or more, fractional) in `prompt_token_ids` or
   * `token_ids`: that list is not recorded (null here; the raw body and stream keep it as sent)
   */
  | 'invalid_token_ids'
  /** the stream ended with `[DONE]` but no chunk carried a `finish_reason`: how the completion ended is unknown */
  | 'finish_reason_missing'
  /**
   * the backend's `finish_reason` or `stop_reason` held a lone UTF-16 surrogate (`"\udc80"`, not Unicode text):
   * stored with U+FFFD in its place; the bodies keep what the backend sent
   */
  | 'backend_text_not_unicode'
  /**
   * the backend reported a weight version (SGLang `weight_version`; its unset value `default` aside) other than the
   * call's policy version: the replica was not serving the weights tokentap tagged the call with (a weight update
   * it missed, or one not announced through the policy version)
   */
  | 'weight_version_mismatch'
  /**
   * a call of a model served token-faithfully (`tokenFaithful`) that went to the chat endpoint instead, because its
   * prompt could not be rendered (metadata `tokenFaithful: {mode: 'plain', reason: 'render-failed', error}`). A note,
   * not a doubt: its ids are the backend's own, exact, and trained on like any plain call's (reconstruction keeps it,
   * `TRUSTED_CALL_FLAGS`); only the session's token chain restarts at the next call
   */
  | 'token_faithful_fallback';

/**
 * Flags that say something about a call without casting doubt on its token ids: reconstruction and `verifySample`
 * treat a call carrying only these as unflagged. Every other flag means its ids are not trusted.
 */
export const TRUSTED_CALL_FLAGS: ReadonlySet<CallFlag> = new Set<CallFlag>(['token_faithful_fallback']);

/**
 * The flags of a call that make its ids untrusted (all but TRUSTED_CALL_FLAGS).
 *
 * @example untrustedFlags(['token_faithful_fallback', 'prompt_ids_missing']) // ['prompt_ids_missing']
 */
export function untrustedFlags(flags: readonly CallFlag[]): CallFlag[] {
  return flags.filter((flag) => !TRUSTED_CALL_FLAGS.has(flag));
}

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
  /** the rollout's lifecycle: `open` until it ends (docs/rollouts.md) */
  status: SessionStatus;
  origin: SessionOrigin;
  /** the GRPO group it belongs to, if any */
  groupId: string | null;
  /** the session's current reward (its newest session-level reward; call rewards aside), null when none was posted */
  reward: number | null;
}

/**
 * Which sessions `listSessions` and `countSessions` take; every filter given must hold. Served by the sessions
 * table and its indexes, the newest session reward (rewards_by_target), and for `frontDoor`/`model` the session's
 * own calls.
 *
 * @example store.listSessions({ groupId: 'task-7', status: 'completed', minReward: 0.5, limit: 20 })
 */
export interface SessionFilter {
  groupId?: string;
  status?: SessionStatus;
  /** newest call (or creation) at or after / before these times (ms since the epoch) */
  since?: number;
  until?: number;
  /** the session's current reward within [minReward, maxReward]; a session without a reward is left out */
  minReward?: number;
  maxReward?: number;
  /** true: only sessions with a session reward; false: only sessions without one */
  hasReward?: boolean;
  /** a session with at least one call through this front door (`openai-chat`, `anthropic-messages`, ...) */
  frontDoor?: string;
  /** a session with at least one call that asked for, or was sent as, this model */
  model?: string;
  /** a substring (case-sensitive, no wildcards) of the session's id or its group id */
  search?: string;
}

/**
 * What `listSessions` can order by: `lastCallAt` is the session's activity (its newest call's start, or its
 * creation); `reward` puts sessions without one last, whichever the order. Ties go by id, ascending.
 */
export type SessionOrderKey = 'lastCallAt' | 'createdAt' | 'callCount' | 'promptTokens' | 'completionTokens' | 'reward' | 'id';

/** @example SESSION_ORDER_KEYS.includes(key) */
export const SESSION_ORDER_KEYS: readonly SessionOrderKey[] = [
  'lastCallAt',
  'createdAt',
  'callCount',
  'promptTokens',
  'completionTokens',
  'reward',
  'id',
];

/**
 * @example store.listSessions({ limit: 100, offset: 100, hasReward: true }) // the second page of rewarded sessions
 * @example store.listSessions({ search: 'task-', orderBy: 'reward', order: 'desc' }) // the best rewarded first
 */
export interface SessionListQuery extends SessionFilter {
  limit?: number;
  offset?: number;
  /** default `lastCallAt` */
  orderBy?: SessionOrderKey;
  /** default `desc` */
  order?: 'asc' | 'desc';
}

/**
 * How a session ended (docs/rollouts.md); `open` until it does.
 *
 * @example store.endSession('r-1', { status: 'truncated', reason: 'explicit', endedAt: Date.now() });
 */
export type SessionEndStatus = 'completed' | 'truncated' | 'failed' | 'aborted';
/** @example if (store.getRollout('r-1')?.status === 'open') console.log('still running'); */
export type SessionStatus = 'open' | SessionEndStatus;

/** @example SESSION_END_STATUSES.includes(status) */
export const SESSION_END_STATUSES: readonly SessionEndStatus[] = ['completed', 'truncated', 'failed', 'aborted'];

/**
 * Who made the session: the rollout API (`api`: it has a key and an idle timeout) or a call's base URL (`implicit`).
 *
 * @example store.getRollout('run-42')?.origin // 'implicit' for a session named only by /s/run-42/v1
 */
export type SessionOrigin = 'implicit' | 'api';

/**
 * Why a session ended: someone said so, or no call came for `sessionIdleTimeoutMs`.
 *
 * @example store.getRollout('r-1')?.endReason // 'idle-timeout'
 */
export type SessionEndReason = 'explicit' | 'idle-timeout';

/**
 * A session's rollout fields and lifecycle, without the call aggregates of SessionRow (cheap, read per call).
 *
 * @example const { status, groupId, sampling } = store.getRollout('r-1') ?? {};
 */
export interface RolloutRow {
  id: string;
  origin: SessionOrigin;
  status: SessionStatus;
  /** the GRPO group (task) the rollout belongs to */
  groupId: string | null;
  /** the task metadata as given at creation */
  task: unknown;
  tags: string[];
  split: 'train' | 'val' | 'test' | null;
  /** sampling overrides applied to every backend request of the session (e.g. `{ temperature: 1 }`) */
  sampling: Record<string, unknown>;
  /** whether a session key was issued for it */
  hasKey: boolean;
  createdAt: number;
  /** start of the newest call, or createdAt */
  activityAt: number;
  endedAt: number | null;
  endReason: SessionEndReason | null;
}

/** @example store.createRollout({ sessionId: 'r-1', groupId: 'task-7', keyHash, createdAt: Date.now() }) */
export interface CreateRolloutInput {
  sessionId: string;
  groupId?: string | null;
  task?: unknown;
  tags?: string[];
  split?: 'train' | 'val' | 'test' | null;
  sampling?: Record<string, unknown>;
  /** sha256 of the session key; the key itself is never stored */
  keyHash?: Uint8Array | null;
  createdAt: number;
}

/** @example store.endSession('r-1', { status: 'completed', reason: 'explicit', endedAt: Date.now() }) */
export interface EndSessionInput {
  status: SessionEndStatus;
  reason: SessionEndReason;
  endedAt: number;
}

/**
 * A reward as stored: the newest per (session, call) counts, the older ones are its history.
 *
 * @example const [sessionReward] = store.listRewards('r-1'); // the session's own reward comes first
 */
export interface RewardRow {
  id: number;
  sessionId: string;
  /** null: the reward of the whole session */
  callId: string | null;
  value: number;
  /** named parts, when given (`{ correct: 1, style: 0.5 }`) */
  components: Record<string, number> | null;
  /** who posted it: 'admin' | 'session-key' | 'library' | 'cli' (tokentap reward) */
  source: string;
  createdAt: number;
}

/** @example store.addReward({ sessionId: 'r-1', value: 1.5, components: { correct: 1, style: 0.5 }, source: 'library', createdAt: Date.now() }) */
export interface AddRewardInput {
  sessionId: string;
  callId?: string | null;
  value: number;
  components?: Record<string, number> | null;
  source: string;
  createdAt: number;
}

/**
 * A GRPO group: complete once `expectedSize` of its sessions have ended.
 *
 * @example const done = store.getGroup('task-7')?.completedAt !== null;
 */
export interface GroupRow {
  id: string;
  /** null until declared */
  expectedSize: number | null;
  metadata: Record<string, unknown>;
  createdAt: number;
  completedAt: number | null;
  /** its sessions, oldest first */
  sessions: Array<{ id: string; status: SessionStatus }>;
}

/** @example store.declareGroup({ groupId: 'task-7', expectedSize: 8, createdAt: Date.now() }) */
export interface DeclareGroupInput {
  groupId: string;
  expectedSize: number;
  metadata?: Record<string, unknown>;
  createdAt: number;
}

/** @example store.getPolicyVersion() // { version: 'step-12', setAt: 1764480000000 } */
export interface PolicyVersionRow {
  version: string;
  setAt: number;
}

/**
 * Which groups the pull API may serve (docs/export.md, "Online pull API"): complete, never acknowledged, not
 * excluded (leased right now), oldest completion first. The rollout-level filters keep a group when at least one
 * of its sessions matches them all.
 *
 * @example store.listServableGroups({ limit: 8, excludeIds: ['task-3'], split: 'train' }) // ['task-1', 'task-2']
 */
export interface ServableGroupsQuery {
  limit: number;
  excludeIds?: readonly string[];
  /** a session created at or after / before these times (ms since the epoch) */
  since?: number;
  until?: number;
  split?: 'train' | 'val' | 'test';
  /** a session carrying every one of these tags */
  tags?: readonly string[];
}

/** @example store.getBatchAck('b-1') // { batchId: 'b-1', groupIds: ['task-1'], consumer: 'trainer-0', ackedAt: 1764480000000 } */
export interface BatchAckRow {
  batchId: string;
  /** the groups this batch's ack consumed */
  groupIds: string[];
  consumer: string;
  ackedAt: number;
}

/** The rollout-level filters of a pull: a group qualifies when one of its sessions matches them all. */
export type ServableGroupsFilter = Omit<ServableGroupsQuery, 'limit' | 'excludeIds'>;

/**
 * A pull's lease, taken in one transaction (docs/export.md, "Online pull API"): between `minGroups` and `maxGroups`
 * servable groups (complete, not acknowledged, in no live lease), oldest completion first, or none.
 *
 * @example store.leaseBatch({ batchId: randomUUID(), consumer: 'trainer-0', minGroups: 2, maxGroups: 8, leasedAt: now, expiresAt: now + 300_000 })
 */
export interface LeaseBatchInput {
  batchId: string;
  consumer: string;
  minGroups: number;
  maxGroups: number;
  leasedAt: number;
  /** the lease is live while the clock reads before this (ms since the epoch) */
  expiresAt: number;
  filters?: ServableGroupsFilter;
}

/**
 * Where a lease stands at a given time: `live` until `expiresAt`, then `expired` (its groups back in the pool) unless
 * it was `released` or `acknowledged` first.
 */
export type BatchLeaseState = 'live' | 'expired' | 'released' | 'acknowledged';

/** @example store.getBatchLease('b-1', Date.now()) // { batchId: 'b-1', groupIds: ['task-1'], consumer: 'trainer-0', state: 'live', ... } */
export interface BatchLeaseRow {
  batchId: string;
  /** the leased groups, in the order they were served */
  groupIds: string[];
  consumer: string;
  leasedAt: number;
  expiresAt: number;
  state: BatchLeaseState;
  /** when it was released or acknowledged (or found expired by an end); null while live or expired by time alone */
  endedAt: number | null;
}

/** What ending a lease did: the lease as it stands now, and whether this call ended it. */
export interface BatchLeaseEnd {
  lease: BatchLeaseRow;
  /** false when the lease had ended already (expired, released or acknowledged): nothing changed */
  ended: boolean;
}

/**
 * The rollout-level filters the store can apply while listing export units (docs/export.md, "Selection and
 * filters"): a unit is listed when at least one of its sessions matches them all.
 *
 * @example store.countExportSessions({ split: 'train', tags: ['math'] }) // sessions in the units an export reads
 */
export interface ExportUnitsFilter {
  /** a session created at or after / before these times (ms since the epoch) */
  since?: number;
  until?: number;
  split?: 'train' | 'val' | 'test';
  /** a session carrying every one of these tags */
  tags?: readonly string[];
  /** a session with one of these ids / in one of these groups */
  sessionIds?: readonly string[];
  groupIds?: readonly string[];
}

/** @example store.listExportUnits({ limit: 256, afterPosition: lastPage.at(-1)?.position ?? 0 }) */
export interface ExportUnitsQuery extends ExportUnitsFilter {
  limit: number;
  /** keyset: list units whose position is after this one (0 or absent: from the start) */
  afterPosition?: number;
}

/**
 * One export unit: a group (listed at its first session) or a session in no group.
 *
 * @example const { groupId, sessionId } = store.listExportUnits({ limit: 1 })[0]; // groupId null: a group of one
 */
export interface ExportUnitRow {
  /** the keyset position: the rowid of the unit's first session (the order sessions were created) */
  position: number;
  /** the unit's first session */
  sessionId: string;
  groupId: string | null;
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
  /** token-faithful calls: the chat request the backend's token-id prompt was rendered from */
  chatRequestBody?: unknown;
  /** sampling parameters as sent (temperature, top_p, top_k, max_tokens, seed, ...) */
  samplingParams: Record<string, unknown>;
  /** harness headers kept as metadata (session ids, user agent, ...), secrets never included */
  metadata: Record<string, unknown>;
  /** wall clock (ms since epoch) when the request was accepted */
  startedAt: number;
  /** policy version the call is served under, if any */
  policyVersion?: string | null;
  /**
   * the gateway process serving the call (`registerInstance`): a gateway starting up marks in progress only the
   * calls of processes that are gone; null or absent outside a gateway
   */
  instanceId?: string | null;
  /** the fleet id of the backend replica first picked for the call (`vllm-2`); null or absent outside a fleet */
  backendId?: string | null;
}

/** A gateway process writing the store (table gateway_instances). */
export interface GatewayInstanceRow {
  id: string;
  /** host name, for people */
  host: string;
  pid: number;
  /** where `pid` names this process: boot id and PID namespace on Linux, the host name elsewhere */
  processScope: string;
  /** the process's start time as its kernel counts it, when known: a reused pid is not taken for it */
  processStart: string | null;
  startedAt: number;
  /** refreshed while the gateway runs (ms since epoch) */
  seenAt: number;
}

/** What `recoverOrphanedCalls` did: calls marked incomplete, and the gone instances it found. */
export interface OrphanRecovery {
  calls: number;
  instances: string[];
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
  /** keys merged into the metadata written at begin (what is only known at the end, e.g. backend retries) */
  metadata?: Record<string, unknown>;
  /**
   * the fleet id of the replica that finally served the call, when a failover moved it off the one named at begin:
   * replaces begin's `backendId`; null or absent keeps begin's
   */
  backendId?: string | null;
  /** the backend's own version of the weights it sampled with (SGLang `weight_version`); null or absent: none reported */
  weightVersion?: string | null;
}

/**
 * A group as the viewer lists it: its sessions, how many have a reward, their mean, and its newest call.
 *
 * @example store.listGroupSummaries()[0] // { groupId: 'task-7', sessions: 8, rewarded: 8, rewardMean: 0.375, lastCallAt: 1764480000000 }
 */
export interface GroupSummaryRow {
  groupId: string;
  sessions: number;
  rewarded: number;
  /** the mean of its sessions' current rewards, null when none has one */
  rewardMean: number | null;
  lastCallAt: number | null;
}

/** The front doors and models (asked for or sent) of a session's calls, each sorted. */
export interface SessionCallKinds {
  frontDoors: string[];
  models: string[];
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
  /** the fleet id of the backend replica that served the call; null when unknown (before schema 6, outside a fleet) */
  backendId: string | null;
  /** the backend's own weight version (SGLang `weight_version`), null when it reported none (vLLM) */
  weightVersion: string | null;
  startedAt: number;
  endedAt: number | null;
  timeToFirstTokenMs: number | null;
  totalMs: number | null;
}

/** A call with its stored bodies (read separately: they are large). */
export interface CallBodies {
  requestBody: unknown;
  backendRequestBody: unknown;
  /** token-faithful calls: the chat request their token-id prompt was rendered from; null otherwise */
  chatRequestBody: unknown;
  responseBody: unknown;
  responseStream: string | null;
}

/** What a session-end watch tells its reader. */
export interface SessionEndListener {
  /** a session's status changed (it ended), committed by any connection to the database */
  ended(sessionId: string): void;
  /**
   * The notices reach this process (`true`: the watch listens) or may not (`false`: its connection dropped; it connects
   * again by itself). A reader keeps nothing it read before a `false`, and keeps nothing while not live. Closing the
   * watch tells nothing.
   */
  liveChanged(live: boolean): void;
}

/** A watch on every session that ends (Store.watchSessionEnds; PostgreSQL's: store/postgres/session-end-watch.ts). */
export interface SessionEndWatch {
  /** true while every session end committed from now on will be told: the watch listens on a connection that is up */
  readonly live: boolean;
  /** stops listening and closes its connection */
  close(): Promise<void>;
}

/**
 * What `readChangeMark` reads: equal marks mean no session or call was added, no call ended, no reward was posted and
 * no session ended in between (a call's start moves its session's activity; an end leaves the calls in progress).
 *
 * @example const before = JSON.stringify(store.readChangeMark()); // ...; changed = JSON.stringify(store.readChangeMark()) !== before
 */
export interface StoreChangeMark {
  /** the newest session activity (a call's start, or a session's creation) */
  newestActivityAt: number | null;
  callsInProgress: number;
  /** the newest reward's row id (rewards are only ever added) */
  newestRewardId: number | null;
  openSessions: number;
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
  /**
   * the largest the database may grow, in bytes (`PRAGMA max_page_count`, rounded down to whole pages; never below
   * its current size): past it a write fails with SQLITE_FULL, as on a full disk
   */
  maxBytes?: number;
  /**
   * PostgreSQL: how long one statement may go unanswered before its connection is taken for lost (the statement fails
   * and the next one connects anew); default DEFAULT_PG_QUERY_TIMEOUT_MS (30 s). The gateway's connections use its
   * `dbQueryTimeoutMs` (5 s): its event loop waits on its own. SQLite: not used.
   */
  queryTimeoutMs?: number;
}

/**
 * The repository: the only way any module touches the database.
 * All writes are synchronous (better-sqlite3) and each is one transaction.
 */
export interface Store {
  /** creates the session if it does not exist; returns true when it was created */
  ensureSession(sessionId: string, metadata?: Record<string, unknown>): boolean;
  getSession(sessionId: string): SessionRow | null;
  /**
   * sessions most recently active first (or as `orderBy`/`order` say), filtered (SessionFilter); DEFAULT_LIST_LIMIT
   * of them unless told otherwise
   */
  listSessions(options?: SessionListQuery): SessionRow[];
  /** how many sessions the filter takes (what listSessions would list without a limit) */
  countSessions(filter?: SessionFilter): number;
  /** inserts an `in_progress` call with the next per-session sequence number; creates the session if needed */
  beginCall(input: BeginCallInput): { callId: string; seq: number };
  /** finishes a call: one transaction, committed when this returns */
  finishCall(callId: string, result: FinishCallInput): void;
  /**
   * `beginCall` inside `batch`, for a caller that wants the seq only once the batch committed (the recorder): on
   * PostgreSQL the begin then waits for no answer before the batch's COMMIT. Call the result after `batch` returned.
   *
   * @example
   * let begun = () => ({ callId: '', seq: 0 });
   * store.batch(() => { begun = store.beginCallLater(input); });
   * const { seq } = begun();
   */
  beginCallLater(input: BeginCallInput): () => { callId: string; seq: number };
  /**
   * `finishCall` inside `batch`: on PostgreSQL the end of a call this store began waits for no answer before the
   * batch's COMMIT, and whether the call was `in_progress` is known only then. Call the result after `batch` returned:
   * it throws what finishCall would have (STORE_CALL_NOT_FOUND, STORE_CALL_ALREADY_FINISHED), that end having changed
   * nothing. A write that throws inside the batch rolls back alone, as with finishCall.
   *
   * @example
   * let check = () => undefined;
   * store.batch(() => { check = store.finishCallLater(callId, result); });
   * check(); // throws if the call was not in progress
   */
  finishCallLater(callId: string, result: FinishCallInput): () => void;
  /**
   * Marks `incomplete` the listed calls still `in_progress` (a live gateway could not record their end); one
   * transaction; returns how many it changed. Calls already finished are left as they are.
   */
  markCallsIncomplete(callIds: readonly string[]): number;
  getCall(callId: string): CallRow | null;
  /**
   * The call's stored bodies. `lazy: true` rebuilds each body when first read (reconstruction reads one request and
   * the reply, never the stream): read them before the store is closed.
   */
  getCallBodies(callId: string, options?: { lazy?: boolean }): CallBodies | null;
  /** calls of a session ordered by seq; their ids are views into shared arrays, read-only (store/session-arena.ts) */
  listCalls(sessionId: string): CallRow[];
  /**
   * What `listCalls` and `listRewards` give for each of several sessions, from one snapshot and a few statements
   * whatever their number (the export reads sessions so, a few dozen at a time). Sessions without calls or rewards
   * get empty lists; every session asked for has an entry.
   */
  listCallsAndRewards(sessionIds: readonly string[]): Map<string, { calls: CallRow[]; rewards: RewardRow[] }>;
  /**
   * The ids of the session's newest calls that ended `ok` with a token-faithful prompt (a `chatRequestBody` kept),
   * newest first, at most `limit`: what a gateway rebuilds a session's token history from after a restart, or when
   * another gateway on this database served the session (docs/token-faithful.md). Calls in progress or ended
   * otherwise are never listed. Served by the (session_id, seq) index from the newest call down.
   */
  listTokenFaithfulCallIds(sessionId: string, limit: number): string[];
  /**
   * Runs several writes as one transaction (each write inside becomes a savepoint): one commit for a batch
   * of calls instead of one per call. A write that throws inside rolls back alone if the caller catches it.
   */
  batch<T>(work: () => T): T;
  /** creates a session through the rollout API (origin `api`), its group row if new, and its key hash; throws STORE_SESSION_EXISTS */
  createRollout(input: CreateRolloutInput): RolloutRow;
  /** the rollout fields of any session, implicit ones included; null when there is no such session */
  getRollout(sessionId: string): RolloutRow | null;
  /** `getRollout` of several sessions in one statement, in the order asked for; sessions that do not exist are left out */
  getRollouts(sessionIds: readonly string[]): RolloutRow[];
  /** the session a key hash belongs to, or null */
  findSessionByKeyHash(keyHash: Uint8Array): string | null;
  /**
   * Ends an open session (STORE_SESSION_NOT_FOUND, STORE_SESSION_ENDED otherwise) and, in the same transaction,
   * marks its group complete when this was the last session it waited for (then `completedGroup` is set).
   */
  endSession(sessionId: string, input: EndSessionInput): { rollout: RolloutRow; completedGroup: GroupRow | null };
  /** open `api` sessions whose newest call started before `before` (idle-timeout candidates) */
  listIdleRollouts(before: number): string[];
  /**
   * appends a reward (STORE_SESSION_NOT_FOUND, or STORE_CALL_NOT_FOUND when the call is not one of the session's;
   * STORE_INVALID_INPUT unless its value, components and their sum are finite within ±MAX_REWARD_MAGNITUDE)
   */
  addReward(input: AddRewardInput): RewardRow;
  /** the current reward per target (session first, then calls in call order), or every reward ever posted with `history` */
  listRewards(sessionId: string, options?: { history?: boolean }): RewardRow[];
  /**
   * Declares a group's size (STORE_GROUP_CONFLICT when it was declared with another size); `completed` is true when
   * this declaration completed it (enough of its sessions had already ended).
   */
  declareGroup(input: DeclareGroupInput): { group: GroupRow; completed: boolean };
  getGroup(groupId: string): GroupRow | null;
  /** records the weight version calls are served under from now on */
  setPolicyVersion(version: string, setAt: number): PolicyVersionRow;
  /** the newest version set, or null */
  getPolicyVersion(): PolicyVersionRow | null;
  /** complete groups nobody acknowledged, oldest completion first (the pull API's pool) */
  listServableGroups(query: ServableGroupsQuery): string[];
  /** consumes complete groups for good under a pull batch id; returns how many were not acknowledged before */
  ackGroups(batchId: string, groupIds: readonly string[], consumer: string, at: number): number;
  /** what an acknowledged batch consumed, or null when no ack carries this batch id */
  getBatchAck(batchId: string): BatchAckRow | null;
  /**
   * Leases servable groups in one transaction, or answers null when fewer than `minGroups` (at least 1) are: on
   * PostgreSQL two gateways leasing at once never take the same group. A group of an expired lease may be taken.
   */
  leaseBatch(input: LeaseBatchInput): BatchLeaseRow | null;
  /** a lease as it stands at `at` (ms since the epoch), or null when no lease has this batch id */
  getBatchLease(batchId: string, at: number): BatchLeaseRow | null;
  /** the leases live at `at`, oldest first, whichever gateway made them */
  listLiveBatchLeases(at: number): BatchLeaseRow[];
  /** gives a live lease's groups back to the pool; null when no lease has this batch id */
  releaseBatch(batchId: string, at: number): BatchLeaseEnd | null;
  /**
   * Consumes a live lease's groups for good (group_acks) and ends it, in one transaction; a lease acknowledged
   * before is answered as it stands (`ended: false`, state `acknowledged`). null when no lease has this batch id.
   */
  acknowledgeBatch(batchId: string, at: number): BatchLeaseEnd | null;
  /** export units (groups at their first session, sessions in no group), oldest first, keyset-paged */
  listExportUnits(query: ExportUnitsQuery): ExportUnitRow[];
  /** how many sessions the units `listExportUnits` lists with this filter hold (for a progress bar) */
  countExportSessions(filter: ExportUnitsFilter): number;
  /** every policy version set, oldest first (a version set twice appears twice) */
  listPolicyVersions(): PolicyVersionRow[];
  /** Records a gateway process that is about to write calls (tagged with its id through `instanceId`). */
  registerInstance(row: GatewayInstanceRow): void;
  /** Refreshes a registered gateway's `seenAt`. */
  touchInstance(id: string, at: number): void;
  /** Forgets a gateway that stopped cleanly. */
  removeInstance(id: string): void;
  /**
   * Marks `incomplete` every call in progress whose gateway is gone (or unknown: recorded before instances, or by no
   * gateway) and forgets the gone gateways; `isLive` judges each registered one. One write transaction.
   */
  recoverOrphanedCalls(isLive: (row: GatewayInstanceRow) => boolean): OrphanRecovery;
  stats(): StoreStats;
  /** calls per status over the whole store (one scan of the calls' status) */
  countCallsByStatus(): Partial<Record<CallStatus, number>>;
  /** how many distinct groups sessions name */
  countGroups(): number;
  /**
   * A few numbers, read through indexes (the open sessions are counted over the sessions), that change whenever a session or call is added, a call ends, a reward
   * is posted or a session ends: what a reader polls to learn cheaply that the store changed (the viewer's events).
   */
  readChangeMark(): StoreChangeMark;
  /** every group sessions name, the most recently active first */
  listGroupSummaries(): GroupSummaryRow[];
  /** for each of these sessions (one query for all), the front doors and models of its calls; a session without calls has empty lists */
  listSessionCallKinds(sessionIds: readonly string[]): Map<string, SessionCallKinds>;
  /**
   * Tells `listener` of every session that ends from the moment the watch is live, whichever connection or host ended
   * it: what lets a gateway keep the rollout rows its calls' admission reads. Null where the engine gives no such
   * notice (SQLite: reading a row costs a lookup, and no notice could cross its processes). Close it before the store.
   */
  watchSessionEnds(listener: SessionEndListener): SessionEndWatch | null;
  /** `PRAGMA integrity_check` output: 'ok' for a sound file, else one line per problem */
  integrityCheck(): string;
  close(): void;
}
