/** Ids compared per memcmp; a mismatch inside a chunk is then found id by id. */
const CHUNK_IDS = 1024;

/**
 * How many leading ids two sequences share. Compares chunk by chunk with `Buffer.equals` (memcmp)
 * because prompts run to hundreds of thousands of ids and this runs for every candidate parent on
 * every finished call.
 *
 * @example
 * commonPrefixLength(Int32Array.of(1, 2, 3), Int32Array.of(1, 2, 4)); // 2
 */
export function commonPrefixLength(left: Int32Array, right: Int32Array): number {
  const limit = Math.min(left.length, right.length);
  const leftBytes = Buffer.from(left.buffer, left.byteOffset, left.byteLength);
  const rightBytes = Buffer.from(right.buffer, right.byteOffset, right.byteLength);
  let start = 0;
  while (start < limit) {
    const end = Math.min(start + CHUNK_IDS, limit);
    if (!leftBytes.subarray(start * 4, end * 4).equals(rightBytes.subarray(start * 4, end * 4))) break;
    start = end;
  }
  while (start < limit && left[start] === right[start]) start++;
  return start;
}
