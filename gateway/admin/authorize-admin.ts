import type { FastifyRequest } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { GatewayContext } from '../gateway-context.js';
import type { RewardSource } from '../rollouts/rollout-control.js';
import { isSameSecret, isSessionKey, presentedCredential } from '../rollouts/session-keys.js';

/** Who is asking: the admin (the `adminToken`) or the holder of one session's key. */
export type AdminCaller = Extract<RewardSource, 'admin' | 'session-key'>;

/**
 * Checks the caller of a rollout API route. `sessionId` names the one session a session key may act on (its own:
 * read it, post its rewards, end it); without it the route is the admin's only. A missing or wrong credential is
 * 401, a session key where it may not go 403. The admin token is compared in constant time.
 *
 * @example authorizeCaller(request, context) // admin only
 * @example authorizeCaller(request, context, request.params.sessionId) // the admin, or this session's key
 */
export function authorizeCaller(request: FastifyRequest, context: GatewayContext, sessionId?: string): AdminCaller {
  const credential = presentedCredential(request.headers);
  if (credential === undefined) {
    throw new TokentapError('TT_UNAUTHORIZED', {
      message: 'Send the admin token (or, for its own session, the session key) as Authorization: Bearer ...',
    });
  }
  if (isSessionKey(credential)) {
    const owner = context.rollouts.sessionForKey(credential);
    if (owner === null) throw new TokentapError('TT_UNAUTHORIZED', { message: 'Unknown session key' });
    if (sessionId === undefined)
      throw new TokentapError('TT_FORBIDDEN', { message: 'A session key reaches only its own session; this route needs the admin token' });
    if (owner !== sessionId) throw new TokentapError('TT_FORBIDDEN', { message: 'This session key belongs to another session' });
    return 'session-key';
  }
  const adminToken = context.config.adminToken;
  if (adminToken === undefined) {
    throw new TokentapError('TT_UNAUTHORIZED', { message: 'The admin API is off: start tokentap with --admin-token (or TOKENTAP_ADMIN_TOKEN)' });
  }
  if (!isSameSecret(credential, adminToken)) throw new TokentapError('TT_UNAUTHORIZED', { message: 'Wrong admin token' });
  return 'admin';
}
