import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rangeEquals, sharedPrefixLength, startsWithSequence } from '../../../core/token-ids/shared-prefix-length.js';

/** The plain definition, id by id. */
function naiveShared(whole: Int32Array, sequence: number[]): number {
  let shared = 0;
  while (shared < whole.length && shared < sequence.length && whole[shared] === sequence[shared]) shared++;
  return shared;
}

function naiveCommonPrefixLength(left: Int32Array, right: Int32Array): number {
  let length = 0;
  while (length < left.length && length < right.length && left[length] === right[length]) length++;
  return length;
}

describe('prefix comparisons on packed ids', () => {
  it('agree with an id-by-id comparison, on separate arrays and on views of one shared array at any offsets', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 9000 }), fc.nat(), fc.nat(), fc.nat(), (values, a, b, c) => {
        const memory = Int32Array.from(values);
        const wholeStart = a % (values.length + 1);
        const promptStart = b % (values.length + 1);
        const whole = memory.subarray(wholeStart);
        const prompt = memory.subarray(promptStart, promptStart + (c % (values.length - promptStart + 1)));
        const completion = memory.subarray(promptStart + prompt.length);
        const sequence = [...prompt, ...completion];
        expect(sharedPrefixLength(whole, prompt, completion)).toBe(naiveShared(whole, sequence));
        expect(startsWithSequence(whole, prompt, completion)).toBe(naiveShared(whole, sequence) === sequence.length);
        // the same ranges as copies
        expect(sharedPrefixLength(whole.slice(), prompt.slice(), completion.slice())).toBe(naiveShared(whole, sequence));
      }),
      { numRuns: 200 },
    );
  });

  it('a range compared with itself is equal; the same memory at another offset is compared by value', () => {
    const memory = Int32Array.from({ length: 10_000 }, (_, index) => index % 7);
    expect(rangeEquals(memory, 100, memory.subarray(100), 0, 5_000)).toBe(true);
    expect(rangeEquals(memory, 0, memory, 7, 5_000)).toBe(true); // period 7
    expect(rangeEquals(memory, 0, memory, 1, 5_000)).toBe(false);
    expect(sharedPrefixLength(memory.subarray(0, 9_000), memory.subarray(0, 4_000), memory.subarray(4_000))).toBe(9_000);
  });

  it('of two sequences (no completion) agree with an id-by-id comparison, mismatches inside and across 4,096-id chunks included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 9000, size: 'max' }),
        fc.nat({ max: 9000 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }),
        (shared, cut, rest) => {
          const left = Int32Array.from(shared);
          const right = Int32Array.from([...shared.slice(0, cut), ...rest]);
          expect(sharedPrefixLength(left, right)).toBe(naiveCommonPrefixLength(left, right));
          expect(sharedPrefixLength(right.subarray(1), left.subarray(1))).toBe(naiveCommonPrefixLength(right.subarray(1), left.subarray(1)));
        },
      ),
    );
  });
});
