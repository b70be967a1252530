import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { ResolvedSimFault } from './sim-fault.js';
import type { Exchange } from './track-exchange.js';

/** One SSE event: its `data:` payload and how many completion tokens it carries (0 for role/usage/[DONE]). */
export interface StreamEvent {
  data: string;
  tokens: number;
}

export interface WriteOptions {
  /** milliseconds per token (tokensPerSecond pacing); 0 writes at once */
  intervalMs: number;
  fault: ResolvedSimFault | null;
}

const BATCH_BYTES = 16 * 1024;

/**
 * Writes an SSE stream like vLLM's StreamingResponse (`text/event-stream`, one `data:` event per chunk),
 * pacing token events and acting out stream faults: `cut-stream` destroys the socket after N token events,
 * `malformed-json` cuts one event's JSON short, `malformed-sse` drops the blank lines between events,
 * `slow-body` waits between events. Unpaced streams without faults are batched into few writes.
 *
 * @example
 * await writeEventStream(exchange, chatStreamEvents(input), { intervalMs: 0, fault: null });
 */
export async function writeEventStream(exchange: Exchange, events: Iterable<StreamEvent>, options: WriteOptions): Promise<void> {
  const { response, signal } = exchange;
  const { fault } = options;
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let tokenEvents = 0;
  let pending = '';
  const paced = options.intervalMs > 0 || fault !== null;
  for (const event of events) {
    if (signal.aborted) return;
    if (event.tokens > 0) {
      if (fault?.kind === 'cut-stream' && tokenEvents >= fault.afterTokens) {
        exchange.destroy();
        return;
      }
      const waitMs = options.intervalMs * event.tokens + (fault?.kind === 'slow-body' ? fault.delayMs : 0);
      if (waitMs > 0 && !(await pause(waitMs, signal))) return;
    }
    const text = frameEvent(event, tokenEvents, fault);
    if (event.tokens > 0) tokenEvents++;
    if (!paced) {
      pending += text;
      if (pending.length < BATCH_BYTES) continue;
      const batch = pending;
      pending = '';
      if (!(await write(exchange, batch))) return;
      continue;
    }
    if (!(await write(exchange, text, fault !== null))) return;
  }
  if (pending !== '' && !(await write(exchange, pending))) return;
  response.end();
}

function frameEvent(event: StreamEvent, tokenEvents: number, fault: ResolvedSimFault | null): string {
  if (event.tokens > 0 && fault?.kind === 'malformed-json' && tokenEvents === fault.afterTokens) {
    return `data: ${event.data.slice(0, Math.floor(event.data.length / 2))}\n\n`;
  }
  if (fault?.kind === 'malformed-sse') {
    // from the Nth token event on (the role chunk before it stays well-formed)
    const first = event.tokens > 0 && tokenEvents === fault.afterTokens;
    if (first) return `this line has no field\ndata: ${event.data}\n`;
    if (tokenEvents > fault.afterTokens) return `data: ${event.data}\n`;
  }
  return `data: ${event.data}\n\n`;
}

export interface BodyOptions {
  /** wait this long before answering (pacing of a non-streamed request) */
  delayMs: number;
  fault: ResolvedSimFault | null;
}

/**
 * Writes a JSON body (vLLM's JSONResponse: compact, `application/json`) and acts out body faults:
 * `slow-body` trickles `chunkBytes` every `delayMs`, `cut-stream` sends half and destroys the socket,
 * `malformed-json` sends the first half as the whole body, `malformed-sse` sends it as an SSE event instead.
 *
 * @example
 * await writeJsonBody(exchange, JSON.stringify(body), { delayMs: 0, fault: null });
 */
export async function writeJsonBody(exchange: Exchange, body: string, options: BodyOptions): Promise<void> {
  const { response, signal } = exchange;
  const { fault } = options;
  if (options.delayMs > 0 && !(await pause(options.delayMs, signal))) return;
  let payload = Buffer.from(body, 'utf8');
  let contentType = 'application/json';
  if (fault?.kind === 'malformed-json') payload = payload.subarray(0, Math.floor(payload.length / 2));
  if (fault?.kind === 'malformed-sse') [payload, contentType] = [Buffer.from(`data: ${body}\n\n`, 'utf8'), 'text/event-stream; charset=utf-8'];
  response.writeHead(200, { 'content-type': contentType, 'content-length': String(payload.length) });
  if (fault?.kind === 'cut-stream') {
    if (await write(exchange, payload.subarray(0, Math.floor(payload.length / 2)), true)) exchange.destroy();
    return;
  }
  if (fault?.kind === 'slow-body') {
    for (let start = 0; start < payload.length; start += fault.chunkBytes) {
      if (!(await write(exchange, payload.subarray(start, start + fault.chunkBytes), true))) return;
      if (start + fault.chunkBytes < payload.length && !(await pause(fault.delayMs, signal))) return;
    }
    response.end();
    return;
  }
  response.end(payload);
}

/** Resolves false when the connection closed while waiting. */
async function pause(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  try {
    await delay(milliseconds, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Writes with backpressure; with `flushed`, waits until the bytes left the process. False when closed. */
async function write(exchange: Exchange, chunk: string | Buffer, flushed = false): Promise<boolean> {
  const { response, signal } = exchange;
  if (signal.aborted) return false;
  if (flushed) {
    await new Promise<void>((resolve) => response.write(chunk, () => resolve()));
    return !signal.aborted;
  }
  if (response.write(chunk)) return true;
  try {
    await once(response, 'drain', { signal });
    return true;
  } catch {
    return false;
  }
}
