import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { settleWithin } from '../../core/async/settle-within.js';
import { ERROR_CODES, type ErrorCode } from '../../core/errors/error-codes.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { compiledWorkerUrl } from '../../core/worker/compiled-worker-url.js';
import { UNUSABLE_TOKENIZER_MESSAGE } from './load-viewer-tokenizer.js';
import {
  VIEWER_WORKER_PROTOCOL,
  type FromViewerWorker,
  type ToViewerWorker,
  type ViewerAnswer,
  type ViewerWorkerData,
  type ViewerWorkerRequest,
} from './viewer-worker-protocol.js';

/** How long close() waits for the thread to close its app and store before it is terminated. */
const CLOSE_GRACE_MS = 2000;
/** Requests waiting on the thread (it answers one after another) past which more are refused, 429. */
export const DEFAULT_VIEWER_MAX_WAITING = 64;

/**
 * Where the viewer's thread script is (core/worker/compiled-worker-url.ts); null in a source checkout never built.
 *
 * @example viewerWorkerUrl() ?? answerOnThisThread()
 */
export function viewerWorkerUrl(moduleUrl: string = import.meta.url): URL | null {
  return compiledWorkerUrl(moduleUrl, 'ui/server', 'viewer-worker');
}

export interface ViewerThreadOptions {
  /** the gateway's database (a SQLite file or a postgres:// URL); the thread opens it read-only */
  db: string;
  modelDir?: string | undefined;
  log: FastifyBaseLogger;
  workerUrl: URL;
  /** requests that may wait on the thread at once; default DEFAULT_VIEWER_MAX_WAITING */
  maxWaiting?: number;
}

interface Pending {
  resolve: (answer: ViewerAnswer) => void;
  reject: (error: Error) => void;
}

/**
 * The viewer's API answered on a thread of its own (`serve --ui`, docs/viewer.md): requests go to viewer-worker.ts,
 * one after another (at most `maxWaiting` waiting: more are refused, 429), and come back as its app answered them. The thread starts at the first request (a gateway
 * nobody browses pays nothing) and stays, keeping its caches; one that dies (or whose store would not open: a
 * PostgreSQL away) fails the requests it held and is started again by the next.
 *
 * @example const thread = new ViewerThread({ db, log, workerUrl }); const { statusCode, body } = await thread.answer('GET', '/ui/api/summary');
 */
export class ViewerThread {
  readonly #options: ViewerThreadOptions;
  #worker: Worker | null = null;
  #ready: Promise<Worker> | null = null;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closing: Promise<void> | null = null;

  constructor(options: ViewerThreadOptions) {
    this.#options = options;
  }

  /** The thread now running, null before the first request and after it stopped (tests stop it to play a crash). */
  get worker(): Worker | null {
    return this.#worker;
  }

  /** true while a thread runs (started and not stopped) */
  get running(): boolean {
    return this.#worker !== null;
  }

  /** The viewer app's answer to one request under VIEWER_API_PREFIX (its path and query). */
  async answer(method: ViewerWorkerRequest['method'], url: string): Promise<ViewerAnswer> {
    if (this.#closing !== null) throw new TokentapError('TT_SHUTTING_DOWN');
    const worker = await (this.#ready ?? this.#start());
    const maxWaiting = this.#options.maxWaiting ?? DEFAULT_VIEWER_MAX_WAITING;
    if (this.#pending.size >= maxWaiting) {
      // heavy pages asked faster than they are read would queue without end
      throw new TokentapError('TT_RATE_LIMITED', { message: `The viewer has ${this.#pending.size} requests waiting; retry later` });
    }
    const id = this.#nextId++;
    return new Promise<ViewerAnswer>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'request', id, method, url } satisfies ToViewerWorker);
    });
  }

  /** Stops the thread (its app and store closed), waiting CLOSE_GRACE_MS at most; requests still held fail. */
  close(): Promise<void> {
    this.#closing ??= this.#stop();
    return this.#closing;
  }

  async #stop(): Promise<void> {
    const worker = this.#worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToViewerWorker);
    if ((await settleWithin(exited, CLOSE_GRACE_MS)) === null) await worker.terminate();
  }

  #start(): Promise<Worker> {
    const worker = new Worker(this.#options.workerUrl, {
      workerData: {
        protocol: VIEWER_WORKER_PROTOCOL,
        db: this.#options.db,
        ...(this.#options.modelDir === undefined ? {} : { modelDir: this.#options.modelDir }),
      } satisfies ViewerWorkerData,
    });
    worker.unref();
    this.#worker = worker;
    const ready = new Promise<Worker>((resolve, reject) => {
      let failure: Error = new Error("the viewer's thread stopped before it was ready");
      worker.on('message', (message: FromViewerWorker) => {
        if (message.type === 'ready') {
          if (message.tokenizerError !== null) {
            this.#options.log.warn({ modelDir: this.#options.modelDir, reason: message.tokenizerError }, UNUSABLE_TOKENIZER_MESSAGE);
          }
          resolve(worker);
        } else if (message.type === 'failed') failure = threadError(message.code, message.message);
        else if (message.type === 'answer') this.#answered(message.id, message);
        else this.#relayLog(message.line);
      });
      worker.on('error', (error) => {
        failure = error;
        this.#options.log.error({ err: error }, "the viewer's thread failed");
      });
      worker.on('exit', () => {
        if (this.#worker === worker) {
          this.#worker = null;
          this.#ready = null;
        }
        reject(failure);
        for (const pending of this.#pending.values()) pending.reject(new Error("the viewer's thread stopped while it answered"));
        this.#pending.clear();
      });
    });
    // a rejection nobody awaits yet (no request waits) is still handled
    ready.catch(() => undefined);
    this.#ready = ready;
    return ready;
  }

  #answered(id: number, answer: ViewerAnswer): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    pending.resolve({ statusCode: answer.statusCode, contentType: answer.contentType, body: answer.body });
  }

  /** a line the viewer app logged (its 500s), at its level, through the gateway's logger */
  #relayLog(line: string): void {
    let entry: { level?: unknown; msg?: unknown; err?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    const message = typeof entry.msg === 'string' ? entry.msg : "viewer's thread";
    const fields = { viewerThread: true, err: entry.err };
    if (typeof entry.level === 'number' && entry.level >= 50) this.#options.log.error(fields, message);
    else this.#options.log.warn(fields, message);
  }
}

/** The thread's failure to open the store as the error the viewer answers with (a PostgreSQL away: 503). */
function threadError(code: string | null, message: string): Error {
  if (code !== null && code in ERROR_CODES) return new TokentapError(code as ErrorCode, { message });
  return new Error(message);
}
