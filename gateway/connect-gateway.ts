import { ERROR_CODES, type ErrorCode } from '../core/errors/error-codes.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import type { CreatedSession, GatewayState, GroupInfo, RolloutApi, SessionInfo } from './rollouts/rollout-api.js';
import { createRolloutSession, rewardBody, type SessionActions } from './rollouts/rollout-session.js';
import { RemoteEvents } from './rollouts/remote-events.js';
import type { RewardRow } from '../store/index.js';

/** @example connectGateway('http://127.0.0.1:4000', { adminToken: process.env.TOKENTAP_ADMIN_TOKEN }) */
export interface ConnectGatewayOptions {
  /** the gateway's `adminToken`; without it only what a session key may do works (through session handles) */
  adminToken?: string;
}

/**
 * The rollout API of a gateway running elsewhere, over HTTP.
 *
 * @example
 * const remote: ConnectedGateway = connectGateway(url, { adminToken });
 * remote.on('group-complete', ({ group }) => console.log(group.id));
 * await remote.eventsReady();
 */
export interface ConnectedGateway extends RolloutApi {
  /** the gateway's base URL */
  readonly url: string;
  /** resolves once the event stream `on()` opened is live (events before it are not replayed) */
  eventsReady(): Promise<void>;
  /** closes the event stream */
  close(): void;
}

/** One long poll of a group or a drain, well under undici's 300 s header timeout. */
const LONG_POLL_MS = 30_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 600_000;

/**
 * The same rollout API as `createGateway` returns, against a running gateway (`tokentap serve --admin-token ...`).
 * Session handles reward and end with their own session key (all a key may do, for its own session only);
 * everything else uses the admin token. Errors come back as TokentapErrors with the gateway's code.
 *
 * @example
 * const gateway = connectGateway('http://127.0.0.1:4000', { adminToken: process.env.TOKENTAP_ADMIN_TOKEN });
 * const session = await gateway.createSession({ groupId: 'task-7' });
 * const client = new OpenAI(session.openai);
 * await session.reward({ correct: 1, style: 0.5 });
 * await session.end();
 */
export function connectGateway(url: string, options: ConnectGatewayOptions = {}): ConnectedGateway {
  const base = url.replace(/\/+$/, '');
  const admin: Record<string, string> = options.adminToken === undefined ? {} : { authorization: `Bearer ${options.adminToken}` };
  const call = <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = admin): Promise<T> =>
    requestJson<T>(`${base}/tokentap/v1${path}`, method, body, headers);
  const sessionPath = (sessionId: string): string => `/sessions/${encodeURIComponent(sessionId)}`;
  const keys = new Map<string, string>();
  const asKey = (sessionId: string): Record<string, string> => {
    const key = keys.get(sessionId);
    return key === undefined ? admin : { authorization: `Bearer ${key}` };
  };
  const actions: SessionActions = {
    reward: (sessionId, reward, rewardOptions) =>
      call<RewardRow>('POST', `${sessionPath(sessionId)}/reward`, rewardBody(reward, rewardOptions), asKey(sessionId)),
    end: (sessionId, status) => call<SessionInfo>('POST', `${sessionPath(sessionId)}/end`, { status }, asKey(sessionId)),
    // reading a session is the admin's: a session key may only reward and end its own session
    info: (sessionId) => call<SessionInfo>('GET', sessionPath(sessionId)),
  };
  const events = new RemoteEvents(`${base}/tokentap/v1/events`, admin);
  return {
    url: base,
    async createSession(sessionOptions = {}) {
      const created = await call<CreatedSession>('POST', '/sessions', sessionOptions);
      keys.set(created.session.id, created.apiKey);
      return createRolloutSession(created, actions);
    },
    getSession: (sessionId) => call<SessionInfo>('GET', sessionPath(sessionId)),
    endSession: (sessionId, status = 'completed') => call<SessionInfo>('POST', `${sessionPath(sessionId)}/end`, { status }),
    reward: (sessionId, reward, rewardOptions) => call<RewardRow>('POST', `${sessionPath(sessionId)}/reward`, rewardBody(reward, rewardOptions)),
    rewardHistory: async (sessionId) => (await call<{ rewards: RewardRow[] }>('GET', `${sessionPath(sessionId)}/rewards`)).rewards,
    declareGroup: (groupId, groupOptions) => call<GroupInfo>('POST', '/groups', { id: groupId, ...groupOptions }),
    getGroup: (groupId) => call<GroupInfo>('GET', `/groups/${encodeURIComponent(groupId)}`),
    async waitForGroup(groupId, waitOptions = {}) {
      for (;;) {
        waitOptions.signal?.throwIfAborted();
        const group = await call<GroupInfo>('GET', `/groups/${encodeURIComponent(groupId)}?waitMs=${LONG_POLL_MS}`);
        if (group.complete) return group;
      }
    },
    setPolicyVersion: (version) => call<{ version: string; setAt: number }>('PUT', '/policy-version', { version }),
    async pause(pauseOptions = {}) {
      const { drain, drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS, ...rest } = pauseOptions;
      const deadline = Date.now() + drainTimeoutMs;
      for (;;) {
        const wait = Math.max(1, Math.min(LONG_POLL_MS, deadline - Date.now()));
        const state = await call<GatewayState>('POST', '/pause', drain === true ? { ...rest, drain, drainTimeoutMs: wait } : rest);
        if (drain !== true || state.drained === true || Date.now() >= deadline) return state;
      }
    },
    resume: () => call<GatewayState>('POST', '/resume', {}),
    state: () => call<GatewayState>('GET', '/state'),
    on: (event, listener) => events.on(event, listener),
    eventsReady: () => events.ready(),
    close: () => events.close(),
  };
}

async function requestJson<T>(url: string, method: string, body: unknown, headers: Record<string, string>): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (response.ok) return json as T;
  const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
  const code = error?.code !== undefined && error.code in ERROR_CODES ? (error.code as ErrorCode) : 'TT_INTERNAL';
  throw new TokentapError(code, { status: response.status, message: error?.message ?? `${method} ${url} answered ${response.status}` });
}
