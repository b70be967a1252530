/**
 * One server-sent-events decoder for every stream tokentap reads (backend streams live, stored streams offline).
 * Follows the WHATWG EventSource parsing rules: lines end in `\r\n`, `\n` or `\r` (and may be split anywhere
 * across chunks), `:` starts a comment, several `data:` lines join with `\n`, a blank line dispatches.
 */

/** One dispatched SSE event. `event` is undefined when the stream named none (the "message" default). */
export interface SseEvent {
  event: string | undefined;
  data: string;
  id: string | undefined;
  retry: number | undefined;
}

/**
 * Incremental SSE decoder: `push(bytes)` returns the events completed by those bytes; `flush()` ends the stream.
 * Multi-byte UTF-8 split across chunks is kept whole by a streaming TextDecoder.
 *
 * @example
 * const decoder = new SseDecoder();
 * for await (const chunk of body) for (const event of decoder.push(chunk)) handle(event);
 * for (const event of decoder.flush()) handle(event);
 */
export class SseDecoder {
  readonly #text = new TextDecoder('utf-8');
  /**
   * The unfinished line, in the pieces it came in (none holds a line end), joined once it ends: a 300 KB event
   * (vLLM's first chunk carries every prompt id) arriving in many socket reads is then copied and scanned once,
   * not re-concatenated and re-scanned from its start on every read.
   */
  #lineParts: string[] = [];
  /** a chunk ended in `\r`: a following `\n` belongs to the same line end */
  #pendingCarriageReturn = false;
  #dataLines: string[] = [];
  #event: string | undefined;
  #id: string | undefined;
  #retry: number | undefined;
  #sawField = false;

  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.#text.decode(chunk, { stream: true });
    return this.#consume(text);
  }

  /** Ends the stream: a last line without terminator is processed; an event without a blank line is dispatched. */
  flush(): SseEvent[] {
    const events = this.#consume(this.#text.decode());
    if (this.#lineParts.length > 0) this.#processLine(this.#takeLine(''), events);
    this.#dispatch(events);
    return events;
  }

  #consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#pendingCarriageReturn && text.startsWith('\n')) start = 1;
    this.#pendingCarriageReturn = false;
    let lineStart = start;
    // indexOf (a native scan) per kind of line end, each searched again only once passed
    let nextLineFeed = text.indexOf('\n', start);
    let nextCarriageReturn = text.indexOf('\r', start);
    for (;;) {
      if (nextLineFeed !== -1 && nextLineFeed < lineStart) nextLineFeed = text.indexOf('\n', lineStart);
      if (nextCarriageReturn !== -1 && nextCarriageReturn < lineStart) nextCarriageReturn = text.indexOf('\r', lineStart);
      let index = nextCarriageReturn === -1 || (nextLineFeed !== -1 && nextLineFeed < nextCarriageReturn) ? nextLineFeed : nextCarriageReturn;
      if (index === -1) break;
      this.#processLine(this.#takeLine(text.slice(lineStart, index)), events);
      if (index === nextCarriageReturn) {
        if (index + 1 === text.length) this.#pendingCarriageReturn = true;
        else if (text.charCodeAt(index + 1) === 10) index++;
      }
      lineStart = index + 1;
    }
    if (lineStart < text.length) this.#lineParts.push(text.slice(lineStart));
    return events;
  }

  /** The unfinished line's pieces plus its last one. */
  #takeLine(last: string): string {
    if (this.#lineParts.length === 0) return last;
    this.#lineParts.push(last);
    const line = this.#lineParts.join('');
    this.#lineParts = [];
    return line;
  }

  #processLine(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.#dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#dataLines.push(value);
        this.#sawField = true;
        break;
      case 'event':
        this.#event = value;
        this.#sawField = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        this.#sawField = true;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        this.#sawField = true;
        break;
      default:
        // unknown fields are ignored, per the spec
        break;
    }
  }

  #dispatch(events: SseEvent[]): void {
    if (this.#sawField && this.#dataLines.length > 0) {
      events.push({ event: this.#event, data: this.#dataLines.join('\n'), id: this.#id, retry: this.#retry });
    }
    this.#dataLines = [];
    this.#event = undefined;
    this.#retry = undefined;
    this.#sawField = false;
  }
}
