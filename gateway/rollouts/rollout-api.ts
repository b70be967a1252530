import type { CallRow, CallStatus, GroupRow, RewardRow, RolloutRow, SessionEndReason, SessionEndStatus, SessionStatus } from '../../store/index.js';
import type { SamplingOverrides } from './rollout-schemas.js';

/**
 * What `createSession` takes (and `POST /tokentap/v1/sessions` reads).
 *
 * @example
 * const options: CreateSessionOptions = { groupId: 'task-7', task: { prompt: '17 + 25?' }, split: 'train', sampling: { temperature: 1 } };
 */
export interface CreateSessionOptions {
  /** the session id; default a random UUID */
  id?: string;
  /** the GRPO group (task id) this rollout belongs to */
  groupId?: string;
  /** task metadata, any JSON, kept with the session */
  task?: unknown;
  tags?: string[];
  split?: 'train' | 'val' | 'test';
  /** forced on every backend request of the session and recorded with each call (e.g. `{ temperature: 1 }`) */
  sampling?: SamplingOverrides;
}

/**
 * A session as the rollout API reports it: its rollout fields and its current rewards.
 *
 * @example
 * const info: SessionInfo = await gateway.getSession('r-1'); // { status: 'completed', reward: { value: 1, ... }, ... }
 */
export interface SessionInfo extends RolloutRow {
  /** the session's current reward (the newest posted), or null */
  reward: RewardRow | null;
  /** the current reward of each rewarded call, in call order */
  callRewards: RewardRow[];
}

/**
 * What `POST /tokentap/v1/sessions` answers: the key is shown here once and never again.
 *
 * @example
 * const created: CreatedSession = await (await fetch(`${url}/tokentap/v1/sessions`, { method: 'POST', headers, body: '{}' })).json();
 * const client = new OpenAI({ baseURL: created.baseUrls.openai, apiKey: created.apiKey });
 */
export interface CreatedSession {
  session: SessionInfo;
  /** `tt-...`: send it as the harness's API key (Authorization: Bearer, or x-api-key) */
  apiKey: string;
  /** `openai`: `.../s/{id}/v1` for OpenAI clients; `anthropic`: `.../s/{id}` for Anthropic clients (they add /v1/messages) */
  baseUrls: { openai: string; anthropic: string };
}

/**
 * A reward: a scalar, or named components (the scalar is then their sum unless `value` is given too).
 *
 * @example
 * await session.reward(1);
 * await session.reward({ correct: 1, style: 0.5 }); // value 1.5
 */
export type RewardInput = number | Record<string, number>;

/**
 * Where a reward goes and its scalar when it has components.
 *
 * @example await session.reward(0.2, { callId }); await session.reward({ correct: 1, style: 0 }, { value: 1 });
 */
export interface RewardOptions {
  /** reward one call of the session instead of the whole session */
  callId?: string;
  /** the scalar when components are given (default: their sum) */
  value?: number;
}

/**
 * A group as the rollout API reports it.
 *
 * @example
 * const group: GroupInfo = await gateway.waitForGroup('task-7');
 * const rewards = group.sessions.map((session) => session.reward ?? 0);
 */
export interface GroupInfo extends Omit<GroupRow, 'sessions'> {
  /** true once `expectedSize` of its sessions have ended */
  complete: boolean;
  sessions: Array<{ id: string; status: SessionStatus; reward: number | null }>;
}

/**
 * How to pause for a weight update.
 *
 * @example const state = await gateway.pause({ mode: 'hold', drain: true }); // state.drained: no call in flight
 */
export interface PauseOptions {
  /** `hold` new calls until resume, or `reject` them with 429 + Retry-After; default the `pauseMode` setting */
  mode?: 'hold' | 'reject';
  /** the Retry-After sent while rejecting; default 5 */
  retryAfterSeconds?: number;
  /** resolve only once no call is in flight (or `drainTimeoutMs` passed: then `drained` is false) */
  drain?: boolean;
  /** default 600000 */
  drainTimeoutMs?: number;
}

/**
 * What `GET /tokentap/v1/state` reports.
 *
 * @example const { inFlight, held, policyVersion } = await gateway.state();
 */
export interface GatewayState {
  paused: boolean;
  pauseMode: 'hold' | 'reject';
  retryAfterSeconds: number;
  pausedAt: number | null;
  policyVersion: string | null;
  /** calls admitted and not finished (their backend request may be running) */
  inFlight: { count: number; callIds: string[] };
  /** calls waiting for resume */
  held: number;
  /** after `pause({ drain: true })`: whether the in-flight calls all finished in time */
  drained?: boolean;
}

/**
 * A call finished (answered, failed or aborted) and is in the store.
 *
 * @example gateway.on('call-end', (event) => console.log(event.sessionId, event.seq, event.status, event.completionTokens));
 */
export interface CallEndEvent {
  callId: string;
  sessionId: string;
  seq: number;
  status: CallStatus;
  policyVersion: string | null;
  groupId: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** the whole call row, token ids included (in-process listeners only; not sent over `GET /tokentap/v1/events`) */
  call?: CallRow;
}

/**
 * A session ended, explicitly or after its idle timeout.
 *
 * @example gateway.on('session-end', (event) => console.log(event.sessionId, event.status, event.reason));
 */
export interface SessionEndEvent {
  sessionId: string;
  status: SessionEndStatus;
  reason: SessionEndReason;
  groupId: string | null;
  endedAt: number;
}

/**
 * The last awaited session of a group ended: its samples are ready for export.
 *
 * @example gateway.on('group-complete', ({ group }) => exportGroup(group));
 */
export interface GroupCompleteEvent {
  groupId: string;
  group: GroupInfo;
}

/**
 * The events `on()` delivers, by name.
 *
 * @example const off = gateway.on('group-complete', (event: GatewayEvents['group-complete']) => train(event.group));
 */
export interface GatewayEvents {
  'call-end': CallEndEvent;
  'session-end': SessionEndEvent;
  'group-complete': GroupCompleteEvent;
}

/** @example const names: GatewayEventName[] = ['call-end', 'session-end', 'group-complete']; */
export type GatewayEventName = keyof GatewayEvents;

/**
 * A rollout session handle: what an `openai` or `@anthropic-ai/sdk` client (or a harness's environment) needs.
 *
 * @example
 * const session = await gateway.createSession({ groupId: 'task-7' });
 * const openai = new OpenAI(session.openai);
 * const anthropic = new Anthropic(session.anthropic);
 * spawn('claude', ['-p', task], { env: { ...process.env, ...session.env } });
 * await session.reward(1);
 * await session.end('completed');
 */
export interface RolloutSession {
  readonly id: string;
  readonly groupId: string | null;
  /** the session key (`tt-...`) */
  readonly apiKey: string;
  /** `new OpenAI(session.openai)` */
  readonly openai: { baseURL: string; apiKey: string };
  /** `new Anthropic(session.anthropic)` */
  readonly anthropic: { baseURL: string; apiKey: string };
  /** OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY for a harness process */
  readonly env: Record<string, string>;
  /** posts a reward for the session (or one call: `{ callId }`); the newest wins, older ones stay as history */
  reward(reward: RewardInput, options?: RewardOptions): Promise<RewardRow>;
  /** ends the session (default `completed`); later calls to it get 409 */
  end(status?: SessionEndStatus): Promise<SessionInfo>;
  /** the session as it is now (through `connectGateway` this needs the admin token: a key may only reward and end) */
  info(): Promise<SessionInfo>;
}

/**
 * The rollout API, the same in-process (`createGateway`) and over HTTP (`connectGateway`).
 *
 * @example
 * async function rollout(api: RolloutApi): Promise<void> {
 *   const session = await api.createSession({ groupId: 'task-7' });
 *   await runAgent(session.openai);
 *   await session.reward(1);
 *   await session.end();
 * }
 */
export interface RolloutApi {
  createSession(options?: CreateSessionOptions): Promise<RolloutSession>;
  getSession(sessionId: string): Promise<SessionInfo>;
  endSession(sessionId: string, status?: SessionEndStatus): Promise<SessionInfo>;
  reward(sessionId: string, reward: RewardInput, options?: RewardOptions): Promise<RewardRow>;
  /** every reward posted for the session, oldest first */
  rewardHistory(sessionId: string): Promise<RewardRow[]>;
  declareGroup(groupId: string, options: { expectedSize: number; metadata?: Record<string, unknown> }): Promise<GroupInfo>;
  getGroup(groupId: string): Promise<GroupInfo>;
  /** resolves once the group is complete (TT_GROUP_NOT_FOUND for an unknown group) */
  waitForGroup(groupId: string, options?: { signal?: AbortSignal }): Promise<GroupInfo>;
  setPolicyVersion(version: string): Promise<{ version: string; setAt: number }>;
  pause(options?: PauseOptions): Promise<GatewayState>;
  resume(): Promise<GatewayState>;
  state(): Promise<GatewayState>;
  /** subscribes to an event; returns the unsubscribe function */
  on<E extends GatewayEventName>(event: E, listener: (payload: GatewayEvents[E]) => void): () => void;
}
