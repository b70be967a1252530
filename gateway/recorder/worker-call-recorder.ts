import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { BeginCallInput, FinishCallInput } from '../../store/types.js';
import type { RecorderWrite } from './batch-writer.js';
import type { UnwrittenEnd } from './end-retries.js';
import {
  settleFinish,
  type Recorder,
  type RecorderCloseReport,
  type RecorderCounters,
  type RecorderHealth,
  type RecordFailurePolicy,
  type RecordWorkerHealth,
} from './recorder.js';
import { countTokens, type TokenCounts } from './count-tokens.js';
import { RecordingOutcomes } from './recording-outcomes.js';
import {
  fromWireError,
  RECORD_WORKER_PROTOCOL,
  toTransferableFinish,
  type FromRecordWorker,
  type RecordWorkerData,
  type ToRecordWorker,
} from './record-worker-protocol.js';

/** Crashes within CRASH_WINDOW_MS after which the recording thread is not restarted again. */
export const DEFAULT_MAX_WORKER_CRASHES = 3;
const CRASH_WINDOW_MS = 60_000;

export interface WorkerCallRecorderOptions {
  /** the database file; the gateway has opened (and migrated) it on its own thread first */
  path: string;
  policy: RecordFailurePolicy;
  log: FastifyBaseLogger;
  /** the compiled record-worker.js (record-worker-url.ts) */
  workerUrl: URL;
  /** crashes within a minute after which the thread is given up on; default DEFAULT_MAX_WORKER_CRASHES */
  maxCrashes?: number;
  /** the database's size cap in bytes (config `dbMaxBytes`), applied to the worker's writing connection */
  maxBytes?: number | undefined;
  /** PostgreSQL: how long one statement may go unanswered (config `dbQueryTimeoutMs`), for the worker's connection */
  queryTimeoutMs?: number | undefined;
}

interface QueuedWrite {
  write: RecorderWrite;
  /** buffers handed over with the write (typed arrays this recorder made) */
  transfer: ArrayBuffer[];
  /** a finish's token ids, counted before its arrays were transferred */
  tokens?: TokenCounts;
  done?: (error: unknown) => void;
}

/**
 * The recorder that writes on a worker thread (`recordInWorker: true`): hashing, compression and SQLite leave the
 * gateway's event loop. Writes made in one turn of the loop are posted together; the worker commits what reached
 * it together and answers in order, and `finish` resolves on that answer, so a call is still committed before
 * its last byte. Bodies cross as structured clones (cheaper than JSON text, and a message list shared by the
 * harness body and the backend body crosses once), token ids as transferred typed arrays.
 *
 * If the thread dies, writes it had not confirmed fail (TT_RECORDING_FAILED under `refuse`; no call hangs), the
 * crash is counted on /healthz, and a new thread takes the writes that follow, first marking incomplete the calls
 * whose end the dead one may have held (refused or unconfirmed; a call no longer in progress is left as it is);
 * after `maxCrashes` crashes in a minute, or a thread that cannot open the store, recording is given up: /healthz
 * answers 503 and every call fails to record by the policy.
 *
 * @example
 * const recorder = new WorkerCallRecorder({ path: 'tokentap.db', policy: 'refuse', log, workerUrl });
 * await recorder.ready();
 * const callId = recorder.begin(input);
 * await recorder.finish(callId, result); // committed by the worker
 */
export class WorkerCallRecorder implements Recorder {
  readonly #options: WorkerCallRecorderOptions;
  readonly #outcomes: RecordingOutcomes;
  readonly #health: RecordWorkerHealth = { state: 'starting', crashes: 0, restarts: 0, lastCrash: null };
  readonly #ready: Promise<void>;
  #markReady: () => void = () => undefined;
  #failReady: (error: unknown) => void = () => undefined;
  #worker: Worker | null = null;
  #workerReady = false;
  #lastWorkerError: Error | null = null;
  /** writes not posted yet */
  #queued: QueuedWrite[] = [];
  /** writes posted and not answered yet, oldest first (the worker answers in order) */
  #posted: QueuedWrite[] = [];
  #postScheduled = false;
  #crashTimes: number[] = [];
  /**
   * Calls whose end the thread refused or never confirmed since it last reported no end waiting: it may hold them
   * (end-retries.ts). Should it die, the next thread marks each still in progress incomplete.
   */
  readonly #endsAtRisk = new Set<string>();
  #closed: Promise<RecorderCloseReport> | null = null;
  #onClosed: () => void = () => undefined;

  constructor(options: WorkerCallRecorderOptions) {
    this.#options = options;
    this.#outcomes = new RecordingOutcomes(options.log);
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#markReady = resolve;
      this.#failReady = reject;
    });
    this.#ready.catch(() => undefined); // reported through health() and the log when nobody awaits it
    this.#start();
  }

  get counters(): RecorderCounters {
    return this.#outcomes.counters;
  }

  /** The current recording thread, null once given up on or closed (tests stop it to play a crash). */
  get worker(): Worker | null {
    return this.#worker;
  }

  begin(input: BeginCallInput): string {
    this.counters.callsStarted++;
    const callId = input.callId ?? randomUUID();
    this.#enqueue({ write: { kind: 'begin', input: { ...input, callId } }, transfer: [] });
    return callId;
  }

  finish(callId: string, result: FinishCallInput): Promise<void> {
    return this.#finish(callId, result, this.#options.policy === 'refuse' ? 'mark-incomplete' : 'retry');
  }

  async finishQuietly(callId: string, result: FinishCallInput): Promise<void> {
    // the harness gets an error either way: the end says what it got, so a refused one is worth writing again
    await this.#finish(callId, result, 'retry').catch(() => undefined);
  }

  #finish(callId: string, result: FinishCallInput, ifUnwritten: UnwrittenEnd): Promise<void> {
    const { result: transferable, transfer } = toTransferableFinish(result);
    return new Promise<void>((resolve, reject) => {
      this.#enqueue({
        write: { kind: 'finish', callId, result: transferable, ifUnwritten },
        transfer,
        tokens: countTokens(result),
        done: (error) => settleFinish(this.#options.policy, error, resolve, reject),
      });
    });
  }

  failedBeforeBegin(error: unknown): void {
    this.#outcomes.failedBeforeBegin(error);
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  health(): RecorderHealth {
    return { healthy: this.#health.state !== 'failed', mode: 'worker', worker: { ...this.#health }, ...this.#outcomes.failure() };
  }

  close(): Promise<RecorderCloseReport> {
    if (this.#closed !== null) return this.#closed;
    // the worker's last `ends` report has come by the time it exits: what it counts then is left in progress
    this.#closed = new Promise<RecorderCloseReport>((resolve) => {
      this.#onClosed = () => resolve({ unfinishedCalls: this.#outcomes.failure().endsWaiting });
    });
    const worker = this.#worker;
    if (worker === null) {
      this.#health.state = this.#health.state === 'failed' ? 'failed' : 'closed';
      this.#failAll(this.#queued, new Error('the recorder is closed'));
      this.#queued = [];
      this.#onClosed();
      return this.#closed;
    }
    this.#post();
    worker.ref();
    worker.postMessage({ type: 'close' } satisfies ToRecordWorker);
    return this.#closed;
  }

  #start(): void {
    const worker = new Worker(this.#options.workerUrl, {
      workerData: {
        protocol: RECORD_WORKER_PROTOCOL,
        path: this.#options.path,
        maxBytes: this.#options.maxBytes,
        queryTimeoutMs: this.#options.queryTimeoutMs,
      } satisfies RecordWorkerData,
    });
    this.#worker = worker;
    this.#workerReady = false;
    this.#lastWorkerError = null;
    worker.unref();
    worker.on('message', (message: FromRecordWorker) => this.#onMessage(message));
    worker.on('error', (error) => {
      this.#lastWorkerError = error;
    });
    worker.on('exit', (code) => this.#onExit(worker, code));
    // writes queued while the last thread died go to this one
    this.#schedulePost();
  }

  #enqueue(queued: QueuedWrite): void {
    if (this.#worker === null) {
      const reason = this.#closed === null ? 'the recording thread is down' : 'the recorder is closed';
      this.#settle(queued, new Error(reason));
      return;
    }
    this.#queued.push(queued);
    this.#schedulePost();
  }

  #schedulePost(): void {
    if (this.#postScheduled || this.#queued.length === 0) return;
    this.#postScheduled = true;
    setImmediate(() => this.#post());
  }

  /** Posts every queued write as one message. */
  #post(): void {
    this.#postScheduled = false;
    const worker = this.#worker;
    const batch = this.#queued;
    if (worker === null || batch.length === 0) return;
    this.#queued = [];
    worker.ref(); // until the worker answers, its writes keep the process alive
    try {
      worker.postMessage(
        { type: 'writes', writes: batch.map((queued) => queued.write) } satisfies ToRecordWorker,
        batch.flatMap((queued) => queued.transfer),
      );
      for (const queued of batch) this.#posted.push(queued);
    } catch {
      // something in the batch cannot be cloned: post one by one so only that write fails
      for (const queued of batch) {
        try {
          worker.postMessage({ type: 'writes', writes: [queued.write] } satisfies ToRecordWorker, queued.transfer);
          this.#posted.push(queued);
        } catch (error) {
          this.#settle(queued, error);
        }
      }
    }
  }

  #onMessage(message: FromRecordWorker): void {
    if (message.type === 'ready') {
      this.#workerReady = true;
      if (this.#health.state === 'starting') this.#health.state = 'running';
      this.#markReady();
      return;
    }
    if (message.type === 'settled') {
      this.counters.batchesCommitted += message.batchesCommitted;
      const answered = this.#posted.splice(0, message.errors.length);
      answered.forEach((queued, index) => {
        const wire = message.errors[index];
        this.#settle(queued, wire === null || wire === undefined ? undefined : fromWireError(wire));
      });
      if (this.#posted.length === 0 && this.#queued.length === 0 && this.#closed === null) this.#worker?.unref();
      return;
    }
    if (message.type === 'ends') {
      if (message.waiting === 0) this.#endsAtRisk.clear();
      this.#outcomes.ends(message);
    }
  }

  #onExit(worker: Worker, code: number): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    const unanswered = this.#posted;
    this.#posted = [];
    if (this.#closed !== null && code === 0) {
      this.#failAll(unanswered, new Error('the recording thread closed before confirming this write'));
      if (this.#health.state !== 'failed') this.#health.state = 'closed';
      this.#onClosed();
      return;
    }
    const cause = this.#lastWorkerError ?? new Error(`the recording thread exited with code ${code}`);
    const now = Date.now();
    this.#health.crashes++;
    this.#health.lastCrash = { at: now, message: cause.message };
    this.#crashTimes = [...this.#crashTimes.filter((at) => now - at < CRASH_WINDOW_MS), now];
    this.#options.log.error({ err: cause, exitCode: code, unconfirmedWrites: unanswered.length }, 'the recording thread stopped');
    this.#failAll(unanswered, new Error(`the recording thread stopped before confirming this write: ${cause.message}`, { cause }));
    const giveUp = !this.#workerReady || this.#closed !== null || this.#crashTimes.length > (this.#options.maxCrashes ?? DEFAULT_MAX_WORKER_CRASHES);
    if (giveUp) {
      this.#health.state = 'failed';
      this.#failAll(this.#queued, new Error(`the recording thread is down: ${cause.message}`, { cause }));
      this.#queued = [];
      this.#failReady(cause);
      this.#onClosed();
      this.#options.log.error('recording is given up: every call now fails to record (see /healthz)');
      return;
    }
    this.#health.restarts++;
    this.#health.state = 'starting';
    this.#options.log.warn({ restarts: this.#health.restarts }, 'starting a new recording thread');
    // the ends the dead thread held died with it: their rows would stay in_progress while this gateway runs
    const orphaned = [...this.#endsAtRisk];
    this.#endsAtRisk.clear();
    this.#outcomes.ends({ waiting: orphaned.length, recorded: 0, promptTokens: 0, completionTokens: 0, markedIncomplete: 0 });
    this.#start();
    if (orphaned.length > 0) {
      this.#options.log.warn({ calls: orphaned.length }, 'calls whose end the stopped recording thread may have held are marked incomplete');
      // #start() set the new thread (flow analysis still sees the null set above); it reads this after the store opens
      (this.#worker as Worker | null)?.postMessage({ type: 'orphaned-ends', callIds: orphaned } satisfies ToRecordWorker);
    }
  }

  #failAll(writes: QueuedWrite[], error: Error): void {
    for (const queued of writes) this.#settle(queued, error);
  }

  #settle(queued: QueuedWrite, error: unknown): void {
    if (error !== undefined && queued.write.kind === 'finish') this.#endsAtRisk.add(queued.write.callId);
    this.#outcomes.settled(queued.write, error, queued.tokens);
    queued.done?.(error);
  }
}
