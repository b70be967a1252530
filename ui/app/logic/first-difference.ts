/**
 * Where two sides of a chain break part: the index of the first element that differs, the shorter side's length
 * when one is a prefix of the other, -1 when they are equal.
 *
 * @example
 * firstDifference([1, 2, 3], [1, 2, 4]); // 2
 */
export function firstDifference<T>(expected: ArrayLike<T>, actual: ArrayLike<T>): number {
  const shared = Math.min(expected.length, actual.length);
  for (let index = 0; index < shared; index++) if (expected[index] !== actual[index]) return index;
  return expected.length === actual.length ? -1 : shared;
}
