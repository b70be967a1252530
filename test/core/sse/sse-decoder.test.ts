import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseDecoder, type SseEvent } from '../../../core/sse/sse-decoder.js';
import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';

function decodeInPieces(pieces: Array<Uint8Array | string>): SseEvent[] {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  for (const piece of pieces) events.push(...decoder.push(piece));
  events.push(...decoder.flush());
  return events;
}

function splitBytes(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

const STREAM =
  'data: {"a":1}\n\n: keep-alive comment\n\nevent: message_start\ndata: {"b":"é中😀"}\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n';

describe('SseDecoder', () => {
  it('decodes data, named events, comments and multi-line data', () => {
    const events = decodeInPieces([STREAM]);
    expect(events.map((event) => [event.event, event.data])).toEqual([
      [undefined, '{"a":1}'],
      ['message_start', '{"b":"é中😀"}'],
      [undefined, 'line one\nline two'],
      [undefined, '[DONE]'],
    ]);
  });

  it('gives the same events when fed byte by byte, including multi-byte UTF-8 split across chunks', () => {
    const bytes = new TextEncoder().encode(STREAM);
    const whole = decodeInPieces([bytes]);
    const byteByByte = decodeInPieces(Array.from(bytes, (_, index) => bytes.subarray(index, index + 1)));
    expect(byteByByte).toEqual(whole);
    expect(whole[1]?.data).toBe('{"b":"é中😀"}');
  });

  it('treats \\r\\n split between chunks as one line end, and accepts bare \\r', () => {
    const events = decodeInPieces(['data: x\r', '\n\r', '\ndata: y\r\r']);
    expect(events.map((event) => event.data)).toEqual(['x', 'y']);
  });

  it('dispatches a final event that lacks the blank line at flush', () => {
    expect(decodeInPieces(['data: tail']).map((event) => event.data)).toEqual(['tail']);
  });

  it('ignores events that carry no data and keeps id and retry', () => {
    const events = decodeInPieces(['event: ping\n\nid: 7\nretry: 300\ndata: z\n\n']);
    expect(events).toEqual([{ event: undefined, data: 'z', id: '7', retry: 300 }]);
  });

  it('decodes any split of any encoded event sequence to the same events (property)', () => {
    const eventArbitrary = fc.record({
      event: fc.option(fc.stringMatching(/^[a-z_.]{1,12}$/), { nil: undefined }),
      data: fc.string({ unit: 'grapheme', maxLength: 40 }).map((text) => text.replace(/\r\n?/g, '\n')),
    });
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (events, cuts) => {
        const text = events.map((event) => encodeSseEvent(event)).join('');
        const decoded = decodeInPieces(splitBytes(new TextEncoder().encode(text), cuts));
        expect(decoded.map((event) => ({ event: event.event, data: event.data }))).toEqual(events);
      }),
    );
  });
});
