import { describe, expect, it } from 'vitest';
import { settleWithin } from '../../core/async/settle-within.js';

describe('settleWithin', () => {
  it('gives the value of a promise that settles in time, undefined included, and throws its rejection', async () => {
    expect(await settleWithin(Promise.resolve(7), 1_000)).toEqual({ value: 7 });
    expect(await settleWithin(Promise.resolve(undefined), 1_000)).toEqual({ value: undefined });
    await expect(settleWithin(Promise.reject(new Error('refused')), 1_000)).rejects.toThrow('refused');
  });

  it('answers null once the time is up while the promise is still pending, a negative time at once', async () => {
    const pending = new Promise<number>(() => undefined);
    const startedAt = performance.now();
    expect(await settleWithin(pending, 50)).toBeNull();
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(45);
    expect(await settleWithin(pending, -10)).toBeNull();
  });
});
