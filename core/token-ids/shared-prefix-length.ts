/**
 * Token comparisons on packed ids. A call's full sequence is its prompt followed by its completion; these helpers
 * compare against the two parts without concatenating them, and compare with `Buffer.equals` (memcmp) because
 * prompts run to hundreds of thousands of ids and every call is compared with every open chain. Ranges that are the
 * same memory are equal without reading them.
 */

/** Ids compared per memcmp; a mismatch inside a chunk is then found id by id. */
const CHUNK_IDS = 4096;

/**
 * How many leading ids `whole` shares with `prompt ++ completion`, or with `prompt` alone when there is no
 * completion (two sequences: the store's prompt delta looks for the longest stored prefix of a new prompt).
 *
 * @example
 * sharedPrefixLength(Int32Array.of(1, 2, 3, 9), Int32Array.of(1, 2), Int32Array.of(3, 4)); // 3
 * sharedPrefixLength(Int32Array.of(1, 2, 3), Int32Array.of(1, 2, 4)); // 2
 */
export function sharedPrefixLength(whole: Int32Array, prompt: Int32Array, completion: Int32Array | null = null): number {
  const inPrompt = sharedRangeLength(whole, 0, prompt, 0, Math.min(whole.length, prompt.length));
  if (inPrompt < prompt.length || completion === null) return inPrompt;
  const limit = Math.min(whole.length - prompt.length, completion.length);
  return prompt.length + sharedRangeLength(whole, prompt.length, completion, 0, limit);
}

/**
 * True when `whole` starts with `prompt ++ completion` (the merge rule: a chain tip extends into a new prompt).
 *
 * @example
 * startsWithSequence(Int32Array.of(1, 2, 3, 9), Int32Array.of(1, 2), Int32Array.of(3)); // true
 */
export function startsWithSequence(whole: Int32Array, prompt: Int32Array, completion: Int32Array | null): boolean {
  const completionLength = completion?.length ?? 0;
  if (whole.length < prompt.length + completionLength) return false;
  if (!rangeEquals(whole, 0, prompt, 0, prompt.length)) return false;
  return completion === null || rangeEquals(whole, prompt.length, completion, 0, completionLength);
}

/**
 * True when `left[leftStart, +length)` equals `right[rightStart, +length)`.
 *
 * @example
 * rangeEquals(Int32Array.of(7, 1, 2), 1, Int32Array.of(1, 2), 0, 2); // true
 */
export function rangeEquals(left: Int32Array, leftStart: number, right: Int32Array, rightStart: number, length: number): boolean {
  if (length === 0 || sameMemory(left, leftStart, right, rightStart)) return true;
  if (length < 16) {
    for (let index = 0; index < length; index++) if (left[leftStart + index] !== right[rightStart + index]) return false;
    return true;
  }
  return bytesOf(left, leftStart, length).equals(bytesOf(right, rightStart, length));
}

function sharedRangeLength(left: Int32Array, leftStart: number, right: Int32Array, rightStart: number, limit: number): number {
  if (sameMemory(left, leftStart, right, rightStart)) return limit;
  let done = 0;
  while (done < limit) {
    const step = Math.min(CHUNK_IDS, limit - done);
    if (!rangeEquals(left, leftStart + done, right, rightStart + done, step)) break;
    done += step;
  }
  while (done < limit && left[leftStart + done] === right[rightStart + done]) done++;
  return done;
}

/**
 * True when both ranges start at the same place of the same memory, so they hold the same ids whatever their
 * length: a store session read lays out a prompt that extends an earlier call right after that call's ids
 * (store/session-arena.ts), and comparing the two then costs nothing.
 */
function sameMemory(left: Int32Array, leftStart: number, right: Int32Array, rightStart: number): boolean {
  return left.buffer === right.buffer && left.byteOffset + leftStart * 4 === right.byteOffset + rightStart * 4;
}

function bytesOf(ids: Int32Array, start: number, length: number): Buffer {
  return Buffer.from(ids.buffer, ids.byteOffset + start * 4, length * 4);
}
