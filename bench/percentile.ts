/**
 * The value at `fraction` of the sorted values (NaN for none): the benches' one reading of a latency percentile.
 *
 * @example percentile([3, 1, 2], 0.5) // 2
 */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}
