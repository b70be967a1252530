import { describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '../../gateway/security/token-bucket-limiter.js';
import { rateLimitSetting } from '../../gateway/config/rate-limit-setting.js';

function limiterAt(options: { requestsPerSecond: number; burst: number; maxBuckets?: number }): {
  limiter: TokenBucketLimiter;
  advance: (ms: number) => void;
} {
  let now = 1_000_000;
  return { limiter: new TokenBucketLimiter({ ...options, now: () => now }), advance: (ms) => (now += ms) };
}

describe('TokenBucketLimiter', () => {
  it('lets a burst through, then refuses with the seconds until the next token', () => {
    const { limiter } = limiterAt({ requestsPerSecond: 0.5, burst: 3 });
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
  });

  it('refills at the rate, up to the burst and no further', () => {
    const { limiter, advance } = limiterAt({ requestsPerSecond: 2, burst: 2 });
    limiter.take('a');
    limiter.take('a');
    expect(limiter.take('a').allowed).toBe(false);
    advance(500);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    advance(60_000);
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, false]);
  });

  it('a refused request takes nothing: knocking does not push the next token further away', () => {
    const { limiter, advance } = limiterAt({ requestsPerSecond: 1, burst: 1 });
    limiter.take('a');
    for (let index = 0; index < 100; index += 1) limiter.take('a');
    advance(1000);
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('keeps one bucket per key', () => {
    const { limiter } = limiterAt({ requestsPerSecond: 1, burst: 1 });
    expect(limiter.take('session:a').allowed).toBe(true);
    expect(limiter.take('session:a').allowed).toBe(false);
    expect(limiter.take('session:b').allowed).toBe(true);
    expect(limiter.take('ip:10.0.0.1').allowed).toBe(true);
  });

  it('holds at most maxBuckets: full ones are dropped first, then the oldest', () => {
    const { limiter, advance } = limiterAt({ requestsPerSecond: 1, burst: 1, maxBuckets: 3 });
    for (const key of ['a', 'b', 'c']) limiter.take(key);
    advance(5000);
    limiter.take('d');
    expect(limiter.size).toBe(1);
    for (const key of ['e', 'f']) limiter.take(key);
    limiter.take('g');
    expect(limiter.size).toBe(3);
    // 'd' was the oldest and went; it starts over with a full bucket
    expect(limiter.take('d').allowed).toBe(true);
  });

  it('refuses settings that would never let anything through', () => {
    expect(() => new TokenBucketLimiter({ requestsPerSecond: 0, burst: 1 })).toThrow(expect.objectContaining({ code: 'TT_INVALID_ARGUMENT' }));
    expect(() => new TokenBucketLimiter({ requestsPerSecond: 1, burst: 0 })).toThrow(expect.objectContaining({ code: 'TT_INVALID_ARGUMENT' }));
  });
});

describe('the rateLimit setting', () => {
  it('takes an object or "RATE" / "RATE,BURST" text; the burst defaults to the rate rounded up', () => {
    expect(rateLimitSetting().parse({ requestsPerSecond: 5, burst: 20 })).toEqual({ requestsPerSecond: 5, burst: 20 });
    expect(rateLimitSetting().parse({ requestsPerSecond: 2.5 })).toEqual({ requestsPerSecond: 2.5, burst: 3 });
    expect(rateLimitSetting().parse('5,20')).toEqual({ requestsPerSecond: 5, burst: 20 });
    expect(rateLimitSetting().parse(' 0.5 ')).toEqual({ requestsPerSecond: 0.5, burst: 1 });
    for (const bad of ['0', '-1', 'fast', '5,0', '5,2.5', { requestsPerSecond: 1, extra: 1 }, { burst: 3 }]) {
      expect(rateLimitSetting().safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
