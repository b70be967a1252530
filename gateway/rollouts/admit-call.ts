import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RolloutRow } from '../../store/index.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { resolveSession, type SessionSource } from '../sessions/resolve-session.js';
import type { RolloutControl } from './rollout-control.js';
import { isSessionKey, presentedCredential } from './session-keys.js';

type CallRequest = FastifyRequest<{ Params: { sessionId?: string } }>;

/** Whose call this is, and the session's rollout row (null for a session the call is about to create). */
export interface CallAttribution {
  sessionId: string;
  source: SessionSource;
  rollout: RolloutRow | null;
}

/** An admitted call: counted in flight until `release()`. */
export interface CallAdmission extends CallAttribution {
  callId: string;
  /** the weight version the call is served under */
  policyVersion: string | null;
  /** the session's sampling overrides ({} when none) */
  sampling: Record<string, unknown>;
  release(): void;
}

function explicitSession(request: CallRequest): string | undefined {
  const header = request.headers['x-tokentap-session'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  return request.params.sessionId ?? (fromHeader === '' ? undefined : fromHeader);
}

/**
 * The session of a model call. A session key (`tt-...` as the API key) selects its session, and a key for
 * another session than the path (or `x-tokentap-session`) names is refused (403); an unknown key is 401.
 * Without a key the implicit rules apply (resolveSession), unless `requireSessionKey` is set or the named session
 * was handed a key (then 401: only its key may add calls to it). Calls to a session
 * that has ended get TT_SESSION_ENDED (409), in the front door's own error shape.
 *
 * @example const { sessionId } = attributeCall(request, control, { requireSessionKey: false });
 */
export function attributeCall(request: CallRequest, control: RolloutControl, options: { requireSessionKey: boolean }): CallAttribution {
  const credential = presentedCredential(request.headers);
  let attribution: { sessionId: string; source: SessionSource };
  if (credential !== undefined && isSessionKey(credential)) {
    const owner = control.readForCall(() => control.sessionForKey(credential));
    if (owner === null)
      throw new TokentapError('TT_UNAUTHORIZED', { message: 'Unknown session key: use the apiKey POST /tokentap/v1/sessions answered' });
    const named = explicitSession(request);
    if (named !== undefined && named !== owner) {
      throw new TokentapError('TT_FORBIDDEN', { message: `This session key belongs to another session than ${JSON.stringify(named.slice(0, 140))}` });
    }
    attribution = { sessionId: owner, source: request.params.sessionId === undefined ? 'key' : 'path' };
  } else if (options.requireSessionKey) {
    throw new TokentapError('TT_UNAUTHORIZED', {
      message: 'tokentap requires a session key: send the apiKey from POST /tokentap/v1/sessions as the API key',
    });
  } else {
    attribution = resolveSession(request.params.sessionId, request.headers);
  }
  const rollout = control.readForCall(() => control.reads.rollout(attribution.sessionId));
  // a session handed a key takes calls only with that key: naming it in the path must not let anyone add calls
  // (training data) to someone else's rollout
  if (rollout?.hasKey === true && !(credential !== undefined && isSessionKey(credential))) {
    throw new TokentapError('TT_UNAUTHORIZED', {
      message: `Session ${JSON.stringify(rollout.id.slice(0, 140))} has a session key: send it as the API key`,
    });
  }
  assertOpen(rollout);
  return { ...attribution, rollout };
}

function assertOpen(rollout: RolloutRow | null): void {
  if (rollout !== null && rollout.status !== 'open') {
    throw new TokentapError('TT_SESSION_ENDED', { message: `Session ${rollout.id} has ended (${rollout.status}); start a new session` });
  }
}

/**
 * Attributes a call and passes it through the pause gate: held while paused (mode `hold`), or refused with 429
 * and Retry-After (mode `reject`). Resolves null when the harness left while held (nothing recorded, nothing to
 * answer). The session is checked again after a hold: it may have ended meanwhile.
 *
 * @example
 * const admission = await admitCall(request, reply, control, { requireSessionKey }, signal);
 * if (admission !== null) try { ... } finally { admission.release(); }
 */
export async function admitCall(
  request: CallRequest,
  reply: FastifyReply,
  control: RolloutControl,
  options: { requireSessionKey: boolean },
  signal: AbortSignal,
): Promise<CallAdmission | null> {
  const attribution = attributeCall(request, control, options);
  const callId = randomUUID();
  let admission;
  try {
    admission = await control.gate.admit(callId, attribution.sessionId, signal);
  } catch (error) {
    // OpenAI and Anthropic clients honour Retry-After on a 429
    if (error instanceof TokentapError && error.code === 'TT_PAUSED') reply.header('retry-after', String(control.gate.retryAfterSeconds));
    throw error;
  }
  if (admission === 'left') return null;
  const release = (): void => {
    control.gate.release(callId);
    control.callEnded(callId, attribution.sessionId, attribution.rollout?.groupId ?? null);
  };
  let rollout = attribution.rollout;
  try {
    if (admission === 'admitted-after-hold') rollout = control.readForCall(() => control.reads.rollout(attribution.sessionId));
    assertOpen(rollout);
  } catch (error) {
    control.gate.release(callId);
    throw error;
  }
  if (rollout?.origin === 'api') control.sweeper.touch(attribution.sessionId);
  return { ...attribution, rollout, callId, policyVersion: control.policyVersion, sampling: rollout?.sampling ?? {}, release };
}

/**
 * The backend body with the session's sampling overrides forced on it. `max_tokens` also replaces a harness's
 * `max_completion_tokens`, which vLLM would otherwise prefer.
 *
 * @example withSamplingOverrides({ temperature: 0.2, messages }, { temperature: 1 }) // { temperature: 1, messages }
 */
export function withSamplingOverrides(body: Record<string, unknown>, sampling: Record<string, unknown>): Record<string, unknown> {
  if (Object.keys(sampling).length === 0) return body;
  const overridden = { ...body, ...sampling };
  if (sampling.max_tokens !== undefined && body.max_completion_tokens !== undefined) overridden.max_completion_tokens = sampling.max_tokens;
  return overridden;
}
