import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { GatewayContext } from '../gateway-context.js';
import { isSameSecret, isSessionKey, presentedCredential } from '../rollouts/session-keys.js';
import { TokenBucketLimiter } from './token-bucket-limiter.js';

export interface RateLimitSettings {
  requestsPerSecond: number;
  burst: number;
}

/** Probes that must answer even under a flood: a load balancer's health check is not a client. */
const UNLIMITED_PATHS = new Set(['/healthz']);

/**
 * Whose bucket a request takes from: its session (a valid session key), the admin (the admin token), otherwise
 * its client address. Only credentials tokentap can check choose a bucket: a harness's own API key is never
 * verified, so keying on it would let a client mint a fresh bucket per request.
 *
 * @example rateLimitKey(request, context) // 'session:run-42', 'admin' or 'ip:10.0.0.7'
 */
export function rateLimitKey(request: FastifyRequest, context: GatewayContext): string {
  const credential = presentedCredential(request.headers);
  if (credential !== undefined) {
    if (isSessionKey(credential)) {
      const sessionId = context.rollouts.sessionForKey(credential);
      if (sessionId !== null) return `session:${sessionId}`;
    } else if (context.config.adminToken !== undefined && isSameSecret(credential, context.config.adminToken)) {
      return 'admin';
    }
  }
  return `ip:${request.ip}`;
}

/**
 * Refuses requests beyond `requestsPerSecond` (bursts up to `burst`) per session key, admin token or client
 * address with 429 TT_RATE_LIMITED and `Retry-After`, in the protocol's shape of the route asked (the hook runs
 * after routing, so the route's own error handler answers). `/healthz` is never limited.
 *
 * @example registerRateLimit(app, context, { requestsPerSecond: 20, burst: 40 })
 */
export function registerRateLimit(app: FastifyInstance, context: GatewayContext, settings: RateLimitSettings, now?: () => number): void {
  const limiter = new TokenBucketLimiter({ ...settings, ...(now === undefined ? {} : { now }) });
  app.addHook('onRequest', async (request, reply) => {
    if (UNLIMITED_PATHS.has(request.url.split('?')[0] ?? '')) return;
    const result = limiter.take(rateLimitKey(request, context));
    if (result.allowed) return;
    // OpenAI and Anthropic clients wait for Retry-After on a 429 before they retry
    void reply.header('retry-after', String(result.retryAfterSeconds));
    throw new TokentapError('TT_RATE_LIMITED', { message: `Too many requests; retry after ${result.retryAfterSeconds} s` });
  });
}
