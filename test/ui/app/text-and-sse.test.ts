import { describe, expect, it } from 'vitest';
import { firstDifference } from '../../../ui/app/logic/first-difference.js';
import { foldText, prettyJson } from '../../../ui/app/logic/fold-text.js';
import { SseDecoder } from '../../../ui/app/logic/sse-decoder.js';
import { timelineBars } from '../../../ui/app/logic/timeline-scale.js';
import { columnBars, niceTicks } from '../../../ui/app/logic/plot-scale.js';
import { tokenDisplay, visibleWhitespace } from '../../../ui/app/logic/token-display.js';
import type { CallTimelineItem } from '../../../ui/viewer-api.js';

describe('tokenDisplay', () => {
  it('shows a newline as ↵ and still breaks the line', () => {
    expect(tokenDisplay('\n', 198)).toBe('↵\n');
    expect(tokenDisplay('a\n\nb', 1)).toBe('a↵\n↵\nb');
  });

  it('makes a token of spaces and tabs visible, and shows the id without a tokenizer', () => {
    expect(tokenDisplay('  ', 2)).toBe('··');
    expect(tokenDisplay('\t', 3)).toBe('⇥');
    expect(tokenDisplay(' the', 4)).toBe(' the');
    expect(tokenDisplay(null, 151644)).toBe('⟨151644⟩');
    expect(visibleWhitespace(' a\n')).toBe('·a↵');
  });
});

describe('firstDifference', () => {
  it('finds where two sides part', () => {
    expect(firstDifference([1, 2, 3], [1, 2, 4])).toBe(2);
    expect(firstDifference([1, 2], [1, 2, 3])).toBe(2);
    expect(firstDifference([1, 2], [1, 2])).toBe(-1);
    expect(firstDifference('abc', 'abd')).toBe(2);
  });
});

describe('foldText', () => {
  it('folds content longer than the limit to its first lines', () => {
    const text = Array.from({ length: 40 }, (_, index) => `line ${index}`).join('\n');
    const folded = foldText(text, 30);
    expect(folded.folded).toBe(true);
    expect(folded.lineCount).toBe(40);
    expect(folded.head.split('\n')).toHaveLength(30);
    expect(foldText('a\nb', 30)).toEqual({ head: 'a\nb', lineCount: 2, folded: false });
  });

  it('folds one enormous line', () => {
    expect(foldText('x'.repeat(10_000), 30).folded).toBe(true);
  });

  it('pretty-prints JSON arguments and leaves broken JSON as it was', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('{"a":')).toBe('{"a":');
  });
});

describe('SseDecoder', () => {
  const stream = 'event: change\ndata: {"a":1}\n\n: keep-alive\n\nevent: change\r\ndata: x\r\ndata: y\r\n\r\n';

  it('decodes events and skips comments', () => {
    expect(new SseDecoder().push(stream)).toEqual([
      { event: 'change', data: '{"a":1}', id: null },
      { event: 'change', data: 'x\ny', id: null },
    ]);
  });

  it('decodes the same events fed one character at a time (a \\r\\n split across chunks)', () => {
    const decoder = new SseDecoder();
    const events = [...stream].flatMap((character) => decoder.push(character));
    expect(events.map((event) => event.data)).toEqual(['{"a":1}', 'x\ny']);
  });

  it('ends lines at a lone \\r', () => {
    expect(new SseDecoder().push('data: a\r\rdata: b\r\r').map((event) => event.data)).toEqual(['a', 'b']);
  });
});

describe('timelineBars', () => {
  const call = (id: string, startedAt: number, totalMs: number | null, ttft: number | null): CallTimelineItem => ({
    id,
    seq: 0,
    frontDoor: 'openai',
    path: '/v1/chat/completions',
    requestedModel: null,
    backendModel: null,
    stream: true,
    status: 'ok',
    httpStatus: 200,
    startedAt,
    endedAt: totalMs === null ? null : startedAt + totalMs,
    timeToFirstTokenMs: ttft,
    totalMs,
    promptTokens: 1,
    completionTokens: 1,
    finishReason: 'stop',
    flags: [],
    backendId: null,
    policyVersion: null,
    weightVersion: null,
    error: null,
    reward: null,
  });

  it('places each call on the session span with its time to first token', () => {
    const timeline = timelineBars([call('a', 1000, 1000, 250), call('b', 2000, 2000, null)], 0);
    expect(timeline.start).toBe(1000);
    expect(timeline.end).toBe(4000);
    expect(timeline.bars[0]).toMatchObject({ left: 0, firstToken: 25, open: false });
    expect(timeline.bars[0]?.width).toBeCloseTo(100 / 3);
    expect(timeline.bars[1]).toMatchObject({ firstToken: null });
    expect(timeline.bars[1]?.left).toBeCloseTo(100 / 3);
  });

  it('runs an unfinished call to now', () => {
    const timeline = timelineBars([call('a', 1000, null, null)], 3000);
    expect(timeline.bars[0]).toMatchObject({ left: 0, width: 100, open: true });
  });
});

describe('plot scales', () => {
  it('picks round ticks', () => {
    expect(niceTicks(0, 100, 4)).toEqual([0, 50, 100]);
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('makes the tallest column reach the top', () => {
    const bars = columnBars([1, 4, 2], 300, 100, 0);
    expect(bars.map((bar) => bar.height)).toEqual([25, 100, 50]);
    expect(bars[1]).toMatchObject({ x: 100, y: 0, width: 100 });
  });
});
