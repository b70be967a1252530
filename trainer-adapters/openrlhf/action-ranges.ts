/**
 * The runs of 1 in a loss mask as `[start, end)` pairs, in order: OpenRLHF's `action_ranges`, from which its
 * samples generator rebuilds `action_mask` (shared/reference/trainer-formats.md 3a).
 *
 * @example actionRanges(Uint8Array.of(0, 1, 1, 0, 1)); // [[1, 3], [4, 5]]
 */
export function actionRanges(mask: Uint8Array): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start = -1;
  for (let position = 0; position < mask.length; position++) {
    if (mask[position] === 1 && start < 0) start = position;
    else if (mask[position] !== 1 && start >= 0) {
      ranges.push([start, position]);
      start = -1;
    }
  }
  if (start >= 0) ranges.push([start, mask.length]);
  return ranges;
}
