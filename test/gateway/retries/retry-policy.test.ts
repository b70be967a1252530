import { describe, expect, it } from 'vitest';
import {
  isRetryableStatus,
  parseRetryAfterMs,
  retryableFailureCode,
  retryDelayMs,
  type RetryPolicy,
} from '../../../gateway/backends/retry-policy.js';
import { mapBackendFailure } from '../../../gateway/errors/map-backend-failure.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { createSeededRandom } from '../../../sim/seeded-random.js';

function policy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { retries: 2, backoffMs: 100, maxBackoffMs: 1_000, retryAfterMaxMs: 5_000, random: () => 0.5, ...overrides };
}

/** An undici-like failure: the system code sits on the cause, as undici wraps socket errors. */
function failure(code: string): TokentapError {
  return mapBackendFailure(Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error(code), { code }) }), { started: false });
}

describe('which backend answers are asked again', () => {
  it('retries 429, 502, 503 and 504, never 500 nor another 4xx', () => {
    expect([429, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 413, 422, 500, 501].some(isRetryableStatus)).toBe(false);
  });

  it('retries connection failures (refused, DNS, reset before headers, connect timeout) and names their code', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(retryableFailureCode(failure(code))).toBe(code);
    }
  });

  it('does not retry a headers or body timeout (the backend may still be generating), an abort, or a bad answer', () => {
    expect(retryableFailureCode(failure('UND_ERR_HEADERS_TIMEOUT'))).toBeNull();
    expect(retryableFailureCode(failure('UND_ERR_BODY_TIMEOUT'))).toBeNull();
    expect(retryableFailureCode(failure('UND_ERR_ABORTED'))).toBeNull();
    expect(
      retryableFailureCode(new TokentapError('TT_BACKEND_BAD_RESPONSE', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })),
    ).toBeNull();
  });
});

describe('how long to wait', () => {
  it('draws the wait below a ceiling that doubles per retry and stops at the maximum (full jitter)', () => {
    const almostOne = policy({ random: () => 0.999 });
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMs(almostOne, retry, undefined))).toEqual([99, 199, 399, 799, 999]);
    expect(retryDelayMs(policy({ random: () => 0 }), 3, undefined)).toBe(0);
  });

  it('gives the same waits for the same seeded random, and keeps each below its ceiling', () => {
    const waits = (seed: number): Array<number | null> => {
      const random = createSeededRandom(seed);
      const seeded = policy({ random: () => random.next() });
      return [1, 2, 3].map((retry) => retryDelayMs(seeded, retry, undefined));
    };
    expect(waits(7)).toEqual(waits(7));
    waits(11).forEach((wait, index) => expect(wait).toBeLessThan(100 * 2 ** index));
  });

  it('waits out a Retry-After in seconds or as a date, but not one longer than the policy allows', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(retryDelayMs(policy(), 1, '2', now)).toBe(2_000);
    expect(retryDelayMs(policy(), 1, 'Mon, 30 Nov 2026 12:00:03 GMT', now)).toBe(3_000);
    expect(retryDelayMs(policy(), 1, '6', now)).toBeNull();
  });

  it('reads an unreadable Retry-After as absent (the backoff applies), a past date as no wait', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(retryDelayMs(policy(), 1, 'soon', now)).toBe(50);
    expect(parseRetryAfterMs('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });
});
