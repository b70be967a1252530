import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { INT32_MAX, INT32_MIN, INT32_TOKEN_ID_MAX, isInt32, isInt32TokenId } from '../../../core/token-ids/is-int32-token-id.js';

describe('isInt32TokenId', () => {
  it('holds for whole numbers from 0 to 2^31 - 1', () => {
    for (const id of [0, -0, 1, 151645, INT32_TOKEN_ID_MAX]) expect(isInt32TokenId(id), String(id)).toBe(true);
  });

  it('fails for negative, 2^31 and wider, fractional and non-finite numbers, and for anything not a number', () => {
    for (const value of [-1, 2 ** 31, 2 ** 53, 2 ** 64, 0.5, 2147483646.5, Number.NaN, Infinity, -Infinity, '1', null, undefined, 1n, [1]]) {
      expect(isInt32TokenId(value), String(value)).toBe(false);
    }
  });
});

describe('isInt32', () => {
  it('holds for whole numbers from -2^31 to 2^31 - 1', () => {
    for (const value of [INT32_MIN, -100, -1, -0, 0, 1, INT32_MAX]) expect(isInt32(value), String(value)).toBe(true);
    expect([INT32_MIN, INT32_MAX]).toEqual([-2_147_483_648, 2_147_483_647]);
  });

  it('fails just outside the range, for fractions and non-finite numbers, and for anything not a number', () => {
    for (const value of [
      INT32_MIN - 1,
      INT32_MAX + 1,
      2 ** 32,
      2 ** 32 + 5,
      -(2 ** 32),
      0.5,
      -1.5,
      Number.NaN,
      Infinity,
      -Infinity,
      '1',
      null,
      undefined,
      1n,
      [1],
      true,
    ]) {
      expect(isInt32(value), String(value)).toBe(false);
    }
  });

  it('agrees with the plain definition on any double, and a token id is exactly an Int32 that is not negative', () => {
    const plain = (value: number): boolean => Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: 2 * INT32_MIN, max: 2 * INT32_MAX })), (value) => {
        expect(isInt32(value)).toBe(plain(value));
        expect(isInt32TokenId(value)).toBe(plain(value) && value >= 0);
      }),
      { numRuns: 2000 },
    );
  });
});
