/**
 * The sample page renders only the chunks of tokens on screen (issue 18: a 100k-token sample must stay fast).
 * Tokens are cut into fixed chunks; a chunk off screen is a placeholder of its measured height, or of an estimate
 * from its text until it was measured. Pure: the page feeds it scroll positions and measurements.
 */

/** Tokens per chunk: a few screens of text, so a scroll renders a handful of chunks. */
export const DEFAULT_CHUNK_SIZE = 512;

export interface TokenChunk {
  index: number;
  /** [start, end) token positions */
  start: number;
  end: number;
}

/** The chunks of `total` tokens, `size` each (the last may be shorter). */
export function chunkRanges(total: number, size = DEFAULT_CHUNK_SIZE): TokenChunk[] {
  const chunks: TokenChunk[] = [];
  for (let start = 0, index = 0; start < total; start += size, index++) chunks.push({ index, start, end: Math.min(total, start + size) });
  return chunks;
}

/** The chunk holding token `position`. */
export function chunkOf(position: number, size = DEFAULT_CHUNK_SIZE): number {
  return Math.floor(position / size);
}

export interface LineMetrics {
  /** characters of the monospace font in one line of the token view */
  charsPerLine: number;
  lineHeight: number;
}

/**
 * The height a run of token texts takes when wrapped at `charsPerLine` (monospace): lines are counted as the
 * browser would lay them out, a newline ending a line and a long line wrapping.
 */
export function estimateTextHeight(texts: Iterable<string>, metrics: LineMetrics): number {
  const width = Math.max(1, Math.floor(metrics.charsPerLine));
  let lines = 1;
  let column = 0;
  for (const text of texts) {
    for (let index = 0; index < text.length; index++) {
      if (text.charCodeAt(index) === 10) {
        lines += 1;
        column = 0;
      } else if (++column > width) {
        lines += 1;
        column = 1;
      }
    }
  }
  return lines * metrics.lineHeight;
}

/** Heights of every chunk, measured ones replacing estimates, and the offsets they add up to. */
export class ChunkHeights {
  readonly #heights: number[];
  readonly #measured: boolean[];
  #offsets: number[] | null = null;

  constructor(estimates: readonly number[]) {
    this.#heights = [...estimates];
    this.#measured = estimates.map(() => false);
  }

  get count(): number {
    return this.#heights.length;
  }

  height(index: number): number {
    return this.#heights[index] ?? 0;
  }

  isMeasured(index: number): boolean {
    return this.#measured[index] ?? false;
  }

  /** Records a chunk's rendered height; true when it changed what the page lays out. */
  measure(index: number, height: number): boolean {
    if (index < 0 || index >= this.#heights.length) return false;
    const changed = this.#heights[index] !== height;
    this.#heights[index] = height;
    this.#measured[index] = true;
    if (changed) this.#offsets = null;
    return changed;
  }

  /** Where chunk `index` starts, from the top of the token view. */
  offsetOf(index: number): number {
    const offsets = this.#prefixSums();
    return offsets[Math.max(0, Math.min(index, offsets.length - 1))] ?? 0;
  }

  totalHeight(): number {
    return this.offsetOf(this.#heights.length);
  }

  /** The chunk at vertical offset `y` (binary search over the offsets). */
  chunkAt(y: number): number {
    const offsets = this.#prefixSums();
    let low = 0;
    let high = this.#heights.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((offsets[middle] ?? 0) <= y) low = middle;
      else high = middle - 1;
    }
    return Math.max(0, low);
  }

  #prefixSums(): number[] {
    if (this.#offsets === null) {
      const offsets = [0];
      for (const height of this.#heights) offsets.push((offsets[offsets.length - 1] ?? 0) + height);
      this.#offsets = offsets;
    }
    return this.#offsets;
  }
}

/** [first, last] chunks to render: those the viewport shows, plus `margin` pixels above and below. */
export function visibleChunkRange(heights: ChunkHeights, scrollTop: number, viewportHeight: number, margin: number): { first: number; last: number } {
  if (heights.count === 0) return { first: 0, last: -1 };
  const first = heights.chunkAt(Math.max(0, scrollTop - margin));
  const last = heights.chunkAt(scrollTop + viewportHeight + margin);
  return { first, last };
}
