import type { GatewayConfig } from '../config/gateway-config.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { backendFailureCode } from '../errors/map-backend-failure.js';

/** When and how long to wait before sending a backend request again (docs/reliability.md, "Backend faults"). */
export interface RetryPolicy {
  /** retries after the first attempt (0: never retry) */
  retries: number;
  /** backoff ceiling of the first retry, doubled per retry */
  backoffMs: number;
  /** the ceiling never exceeds this */
  maxBackoffMs: number;
  /** a longer `Retry-After` is not waited out: the answer goes to the harness as it is */
  retryAfterMaxMs: number;
  /** a number in [0, 1), Math.random unless a test injects a seeded one */
  random: () => number;
}

/**
 * Statuses worth asking again: the backend is busy (429, 503) or a proxy in front of it failed (502, 504).
 * 500 is not among them: vLLM answers 500 when the engine failed on this very request, which a second try repeats.
 */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Failures where the request never reached a backend that answered: nothing was generated for the harness.
 * A reset before the headers is included (the usual sign of a backend restarting or a stale keep-alive socket);
 * a headers timeout is not: the backend may still be generating, and a second request would double the load.
 */
const RETRYABLE_FAILURE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The retry policy the gateway's config describes.
 *
 * @example const policy = retryPolicyFromConfig(config) // { retries: 2, backoffMs: 250, ... }
 */
export function retryPolicyFromConfig(
  config: Pick<GatewayConfig, 'backendRetries' | 'backendRetryBackoffMs' | 'backendRetryMaxBackoffMs' | 'backendRetryAfterMaxMs'>,
): RetryPolicy {
  return {
    retries: config.backendRetries,
    backoffMs: config.backendRetryBackoffMs,
    maxBackoffMs: config.backendRetryMaxBackoffMs,
    retryAfterMaxMs: config.backendRetryAfterMaxMs,
    random: Math.random,
  };
}

/**
 * The code that makes a failed backend request worth retrying (e.g. `ECONNREFUSED`), or null when it is not.
 *
 * @example retryableFailureCode(error) // 'ECONNREFUSED'
 */
export function retryableFailureCode(error: unknown): string | null {
  if (error instanceof TokentapError && error.code !== 'TT_BACKEND_UNREACHABLE' && error.code !== 'TT_BACKEND_TIMEOUT') return null;
  const code = backendFailureCode(error);
  return code !== undefined && RETRYABLE_FAILURE_CODES.has(code) ? code : null;
}

/**
 * Whether an answer with this status is worth asking again.
 *
 * @example isRetryableStatus(503) // true
 */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * How long to wait before retry number `retry` (1 for the first): the backend's `Retry-After` when it sent one
 * (null when that is longer than the policy waits), else a random wait below `backoffMs * 2^(retry-1)`, capped
 * ("full jitter": many gateways retrying together spread out instead of knocking in step).
 *
 * @example retryDelayMs(policy, 1, '2') // 2000
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfter: string | undefined, now = Date.now()): number | null {
  const asked = retryAfter === undefined ? null : parseRetryAfterMs(retryAfter, now);
  if (asked !== null) return asked <= policy.retryAfterMaxMs ? asked : null;
  const ceiling = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * ceiling);
}

/**
 * A `Retry-After` value in ms: delay-seconds or an HTTP date (RFC 9110 section 10.2.3); null when unreadable.
 *
 * @example parseRetryAfterMs('7', Date.now()) // 7000
 */
export function parseRetryAfterMs(value: string, now: number): number | null {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
