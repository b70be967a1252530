import { describe, expect, it } from 'vitest';
import { INT32_TOKEN_ID_MAX, isInt32TokenId } from '../../../core/token-ids/is-int32-token-id.js';

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
