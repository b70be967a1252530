/**
 * Server-sent events from the text of a streamed response (GET /ui/api/events is read with fetch and a stream
 * reader, not EventSource, so the Authorization header can be sent). The pages may not import the gateway's
 * decoder (core/), so this is the browser's own: lines end in `\r\n`, `\n` or `\r`, split anywhere across chunks
 * (the HTML standard's event-stream parsing); UTF-8 split across chunks is TextDecoder's (`stream: true`).
 */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | null;
}

export class SseDecoder {
  #buffer = '';
  #lastWasCr = false;
  #event = '';
  #data: string[] = [];
  #id: string | null = null;

  /** The events a chunk of text completes. */
  push(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === 10 && this.#lastWasCr && index === start && this.#buffer === '') {
        // the \n of a \r\n whose \r ended the previous line (in this chunk or the one before)
        this.#lastWasCr = false;
        start = index + 1;
        continue;
      }
      if (code === 10 || code === 13) {
        this.#line(this.#buffer + text.slice(start, index), events);
        this.#buffer = '';
        this.#lastWasCr = code === 13;
        start = index + 1;
      } else {
        this.#lastWasCr = false;
      }
    }
    this.#buffer += text.slice(start);
    return events;
  }

  #line(line: string, events: ServerSentEvent[]): void {
    if (line === '') {
      if (this.#data.length > 0) events.push({ event: this.#event || 'message', data: this.#data.join('\n'), id: this.#id });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id') this.#id = value;
  }
}
