import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonPrefixLength } from '../../store/common-prefix-length.js';

function naiveCommonPrefixLength(left: Int32Array, right: Int32Array): number {
  let length = 0;
  while (length < left.length && length < right.length && left[length] === right[length]) length++;
  return length;
}

describe('commonPrefixLength', () => {
  it('agrees with an id-by-id comparison, mismatches inside and across 1,024-id chunks included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3000 }),
        fc.nat({ max: 3000 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }),
        (shared, cut, rest) => {
          const left = Int32Array.from(shared);
          const right = Int32Array.from([...shared.slice(0, cut), ...rest]);
          expect(commonPrefixLength(left, right)).toBe(naiveCommonPrefixLength(left, right));
          expect(commonPrefixLength(right.subarray(1), left.subarray(1))).toBe(naiveCommonPrefixLength(right.subarray(1), left.subarray(1)));
        },
      ),
    );
  });
});
