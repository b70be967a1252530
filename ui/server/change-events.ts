import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { encodeSseEvent } from '../../core/sse/encode-sse-event.js';
import type { ViewerSummary } from '../viewer-api.js';
import type { ViewerChangeSource } from './viewer-options.js';

/** A comment line now and then, so proxies and idle timeouts do not close a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** Events of a busy gateway come in bursts: one `change` per this many ms at most. */
const COALESCE_MS = 250;
/**
 * The summary counts over the whole store (calls per status is a scan of the calls): on a large store it is read at
 * most once per this many times its own last reading time, so a viewer left open costs the store (and, on
 * `serve --ui`, the gateway's event loop) at most a tenth of its time.
 */
const SUMMARY_COST_FACTOR = 10;

/**
 * The `change` events of GET /ui/api/events (ui/viewer-api.ts): one source for every open stream, running only
 * while a stream is open. With the gateway's own events (`serve --ui`) each burst of them becomes one `change`; else
 * the store's change mark (a few indexed reads, `readMark`) is read every `pollMs` and a `change` goes out when it
 * moved (without `readMark`, when the summary differs from the last one). The summary is read at most once per
 * SUMMARY_COST_FACTOR times its last reading time. Every
 * stream gets a heartbeat comment each 15 s; `close()` ends every stream (the app's preClose), so nothing holds the
 * process open.
 *
 * @example const events = new ChangeEvents(() => readViewerSummary(store, context), { pollMs: 1000 }); events.open(request, reply);
 */
export class ChangeEvents {
  readonly #readSummary: () => ViewerSummary | Promise<ViewerSummary>;
  readonly #readMark: (() => string) | undefined;
  #lastMark = '';
  /** when the last change went out, and how long its summary took to read */
  #lastEmitAt = 0;
  #summaryMs = 0;
  readonly #changes: ViewerChangeSource | undefined;
  readonly #pollMs: number;
  readonly #log: FastifyBaseLogger;
  readonly #streams = new Set<(text: string) => void>();
  readonly #ends = new Set<() => void>();
  #stopSource: (() => void) | null = null;
  #last = '';
  #pending: NodeJS.Timeout | null = null;
  /** a summary being read (on the viewer's thread, `serve --ui`): a change due meanwhile waits for it */
  #reading = false;
  #dueWhileReading = false;

  constructor(
    readSummary: () => ViewerSummary | Promise<ViewerSummary>,
    options: {
      changes?: ViewerChangeSource | undefined;
      readMark?: (() => string) | undefined;
      pollMs?: number | undefined;
      log: FastifyBaseLogger;
    },
  ) {
    this.#readSummary = readSummary;
    this.#readMark = options.readMark;
    this.#log = options.log;
    this.#changes = options.changes;
    this.#pollMs = options.pollMs ?? 1000;
  }

  /** Answers the request with the event stream; it stays open until the client leaves or close(). */
  open(request: FastifyRequest, reply: FastifyReply): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const send = (text: string): void => {
      if (!raw.destroyed) raw.write(text);
    };
    send(': tokentap viewer events\n\n');
    const heartbeat = setInterval(() => send(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const end = (): void => {
      if (!raw.writableEnded) raw.end();
    };
    this.#streams.add(send);
    this.#ends.add(end);
    if (this.#streams.size === 1) this.#start();
    raw.once('close', () => {
      clearInterval(heartbeat);
      this.#streams.delete(send);
      this.#ends.delete(end);
      if (this.#streams.size === 0) this.#stop();
      request.log.debug('viewer event stream closed');
    });
  }

  /** Ends every open stream and stops the source. */
  close(): void {
    for (const end of [...this.#ends]) end();
    this.#stop();
  }

  #start(): void {
    void this.#summaryText().then((text) => {
      this.#last = text ?? '';
    });
    if (this.#changes !== undefined) {
      this.#stopSource = this.#changes(() => this.#schedule());
      return;
    }
    this.#lastMark = this.#markText() ?? '';
    const poll = setInterval(() => this.#poll(), this.#pollMs);
    poll.unref();
    this.#stopSource = () => clearInterval(poll);
  }

  #stop(): void {
    this.#stopSource?.();
    this.#stopSource = null;
    if (this.#pending !== null) clearTimeout(this.#pending);
    this.#pending = null;
  }

  #poll(): void {
    if (this.#readMark === undefined) {
      if (this.#pending === null && this.#dueIn() === 0) void this.#emit(false);
      return;
    }
    const mark = this.#markText();
    if (mark === null || mark === this.#lastMark) return;
    this.#lastMark = mark;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#pending !== null) return;
    this.#pending = setTimeout(
      () => {
        this.#pending = null;
        void this.#emit(true);
      },
      Math.max(COALESCE_MS, this.#dueIn()),
    );
    this.#pending.unref();
  }

  /** ms until the summary may be read again (SUMMARY_COST_FACTOR) */
  #dueIn(): number {
    return Math.max(0, this.#lastEmitAt + this.#summaryMs * SUMMARY_COST_FACTOR - performance.now());
  }

  #markText(): string | null {
    try {
      return this.#readMark?.() ?? null;
    } catch (error) {
      this.#log.warn({ err: error }, 'viewer events: the store could not be read');
      return null;
    }
  }

  /** a `change` with the summary: on the gateway's word (`always`), or when the polled summary differs */
  async #emit(always: boolean): Promise<void> {
    if (this.#streams.size === 0) return;
    if (this.#reading) {
      // one read at a time; the change it may have missed goes out after it
      this.#dueWhileReading ||= always;
      return;
    }
    this.#reading = true;
    const started = performance.now();
    const summary = await this.#summaryText();
    this.#reading = false;
    this.#summaryMs = performance.now() - started;
    this.#lastEmitAt = performance.now();
    if (this.#dueWhileReading) {
      this.#dueWhileReading = false;
      if (this.#stopSource !== null) this.#schedule();
    }
    if (summary === null || (!always && summary === this.#last)) return;
    this.#last = summary;
    const text = encodeSseEvent({ event: 'change', data: summary });
    for (const send of this.#streams) send(text);
  }

  /** null when the store cannot be read now (it is closing, PostgreSQL is away): the next tick tries again */
  async #summaryText(): Promise<string | null> {
    try {
      return JSON.stringify(await this.#readSummary());
    } catch (error) {
      this.#log.warn({ err: error }, 'viewer events: the store could not be read');
      return null;
    }
  }
}
