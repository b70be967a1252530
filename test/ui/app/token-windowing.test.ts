import { describe, expect, it } from 'vitest';
import { ChunkHeights, chunkOf, chunkRanges, estimateTextHeight, visibleChunkRange } from '../../../ui/app/logic/token-windowing.js';

describe('chunkRanges', () => {
  it('cuts 100k tokens into 512-token chunks, the last one shorter', () => {
    const chunks = chunkRanges(100_000, 512);
    expect(chunks).toHaveLength(196);
    expect(chunks[0]).toEqual({ index: 0, start: 0, end: 512 });
    expect(chunks[195]).toEqual({ index: 195, start: 99_840, end: 100_000 });
    expect(chunkOf(99_999, 512)).toBe(195);
    expect(chunkOf(512, 512)).toBe(1);
  });

  it('makes no chunk of an empty sample', () => {
    expect(chunkRanges(0)).toEqual([]);
  });
});

describe('estimateTextHeight', () => {
  const metrics = { charsPerLine: 10, lineHeight: 20 };

  it('counts a line per newline', () => {
    expect(estimateTextHeight(['a\n', 'b\n', 'c'], metrics)).toBe(60);
  });

  it('wraps a long line at the line width', () => {
    expect(estimateTextHeight(['0123456789', '0123456789', 'x'], metrics)).toBe(60);
    expect(estimateTextHeight(['0123456789'], metrics)).toBe(20);
  });
});

describe('ChunkHeights', () => {
  it('adds estimates up to offsets and finds the chunk at a scroll position', () => {
    const heights = new ChunkHeights([100, 100, 100, 100]);
    expect(heights.offsetOf(2)).toBe(200);
    expect(heights.totalHeight()).toBe(400);
    expect(heights.chunkAt(0)).toBe(0);
    expect(heights.chunkAt(199)).toBe(1);
    expect(heights.chunkAt(200)).toBe(2);
    expect(heights.chunkAt(10_000)).toBe(3);
  });

  it('replaces an estimate by the measured height and moves the offsets after it', () => {
    const heights = new ChunkHeights([100, 100, 100]);
    expect(heights.measure(0, 250)).toBe(true);
    expect(heights.isMeasured(0)).toBe(true);
    expect(heights.isMeasured(1)).toBe(false);
    expect(heights.offsetOf(1)).toBe(250);
    expect(heights.totalHeight()).toBe(450);
    expect(heights.measure(0, 250)).toBe(false);
  });
});

describe('visibleChunkRange', () => {
  it('renders the chunks in the viewport and its margin only', () => {
    const heights = new ChunkHeights(new Array(196).fill(1000));
    expect(visibleChunkRange(heights, 0, 800, 400)).toEqual({ first: 0, last: 1 });
    expect(visibleChunkRange(heights, 50_500, 800, 400)).toEqual({ first: 50, last: 51 });
    expect(visibleChunkRange(heights, 195_500, 800, 400)).toEqual({ first: 195, last: 195 });
  });

  it('renders nothing for an empty sample', () => {
    expect(visibleChunkRange(new ChunkHeights([]), 0, 800, 400)).toEqual({ first: 0, last: -1 });
  });
});
