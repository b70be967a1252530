import { TokentapError } from '../../core/errors/tokentap-error.js';

export interface TokenBucketLimiterOptions {
  /** tokens added per second to every bucket */
  requestsPerSecond: number;
  /** a bucket's size: how many requests may come at once after a quiet spell */
  burst: number;
  /** the clock in milliseconds (tests pass their own) */
  now?: () => number;
  /** buckets kept before full (idle) ones are dropped; bounds memory when many clients come and go */
  maxBuckets?: number;
}

/** What `take` decides: go on, or come back after `retryAfterSeconds`. */
export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const DEFAULT_MAX_BUCKETS = 10_000;

/**
 * One token bucket per key (a session, the admin, a client address): each request takes a token, tokens come back
 * at `requestsPerSecond` up to `burst`. Refused requests take nothing, so a client that keeps knocking is let in
 * as soon as a token is back.
 *
 * @example
 * const limiter = new TokenBucketLimiter({ requestsPerSecond: 5, burst: 10 });
 * const result = limiter.take('ip:10.0.0.7');
 * if (!result.allowed) reply.header('retry-after', String(result.retryAfterSeconds));
 */
export class TokenBucketLimiter {
  readonly #ratePerMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #maxBuckets: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: TokenBucketLimiterOptions) {
    if (!(options.requestsPerSecond > 0) || !(options.burst >= 1))
      throw new TokentapError('TT_INVALID_ARGUMENT', { message: 'requestsPerSecond must be > 0 and burst >= 1' });
    this.#ratePerMs = options.requestsPerSecond / 1000;
    this.#burst = options.burst;
    this.#now = options.now ?? Date.now;
    this.#maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
  }

  /** Takes one token from `key`'s bucket if it has one. */
  take(key: string): TakeResult {
    const now = this.#now();
    const bucket = this.#refilled(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#ratePerMs / 1000)) };
  }

  /** How many buckets are held (for tests and metrics). */
  get size(): number {
    return this.#buckets.size;
  }

  #refilled(key: string, now: number): Bucket {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#maxBuckets) this.#dropFullBuckets(now);
      const fresh = { tokens: this.#burst, updatedAt: now };
      this.#buckets.set(key, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.#ratePerMs);
    bucket.updatedAt = now;
    return bucket;
  }

  /** A full bucket is the same as no bucket: dropping it forgets nothing. If all are in use, the oldest go. */
  #dropFullBuckets(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.#ratePerMs >= this.#burst) this.#buckets.delete(key);
    }
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size < this.#maxBuckets) break;
      this.#buckets.delete(key);
    }
  }
}
