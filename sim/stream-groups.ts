/** Completion positions `start` (inclusive) to `end` (exclusive) that go out in one streamed chunk. */
export interface StreamGroup {
  start: number;
  end: number;
}

/**
 * How vLLM's `--stream-interval N` (PR #27869, `OutputProcessor`) cuts a stream of `tokenCount` tokens into
 * chunks: the first token alone (time to first token is not delayed), then every N tokens, and whatever is left when
 * the request finishes. N = 1 is one token per chunk, vLLM's default.
 *
 * @example
 * [...streamGroups(7, 3)]; // [{ start: 0, end: 1 }, { start: 1, end: 4 }, { start: 4, end: 7 }]
 */
export function* streamGroups(tokenCount: number, interval: number): Generator<StreamGroup> {
  if (tokenCount <= 0) return;
  yield { start: 0, end: 1 };
  for (let start = 1; start < tokenCount; start += interval) yield { start, end: Math.min(tokenCount, start + interval) };
}
