/**
 * Jumping through a sample: to the next or previous low-logprob token, or chain break. Positions are found once
 * (sorted), and each jump is a binary search from the current position.
 */

/** The trained tokens whose logprob is below `threshold`, in order. */
export function lowLogprobPositions(logprobs: ReadonlyArray<number | null>, threshold: number): number[] {
  const positions: number[] = [];
  for (let index = 0; index < logprobs.length; index++) {
    const logprob = logprobs[index];
    if (logprob !== null && logprob !== undefined && logprob < threshold) positions.push(index);
  }
  return positions;
}

/**
 * The first of the sorted `positions` after `current` (direction 1) or before it (-1); null when there is none.
 * `current` null starts before the first token (forward) or after the last (backward).
 *
 * @example
 * nextPosition([3, 9, 20], 9, 1); // 20
 * nextPosition([3, 9, 20], 9, -1); // 3
 */
export function nextPosition(positions: readonly number[], current: number | null, direction: 1 | -1): number | null {
  if (positions.length === 0) return null;
  if (current === null) return direction === 1 ? (positions[0] ?? null) : (positions[positions.length - 1] ?? null);
  // first index whose position is > current (forward) or >= current (backward)
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const value = positions[middle] as number;
    if (direction === 1 ? value <= current : value < current) low = middle + 1;
    else high = middle;
  }
  const index = direction === 1 ? low : low - 1;
  return positions[index] ?? null;
}
