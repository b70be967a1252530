import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { BeginCallInput, FinishCallInput, Store } from '../../store/types.js';
import { BatchWriter, type RecorderWrite } from './batch-writer.js';
import { countTokens } from './count-tokens.js';
import { RecordingOutcomes } from './recording-outcomes.js';
import type { UnwrittenEnd } from './end-retries.js';
import {
  settleFinish,
  type Recorder,
  type RecorderCloseReport,
  type RecorderCounters,
  type RecorderHealth,
  type RecordFailurePolicy,
} from './recorder.js';

export type { RecordFailurePolicy, RecorderCounters } from './recorder.js';

type PendingWrite = RecorderWrite & { done?: (error: unknown) => void };

/**
 * The recorder that writes on the gateway's own thread (`recordInWorker: false`, a store passed in, or an
 * in-memory database): writes queued in one turn of the event loop are committed together on the next
 * (see Recorder in recorder.ts for the contract).
 *
 * @example
 * const recorder = new CallRecorder(store, 'refuse', logger);
 * const callId = recorder.begin(input);
 * await recorder.finish(callId, result); // committed
 */
export class CallRecorder implements Recorder {
  readonly #writer: BatchWriter;
  readonly #policy: RecordFailurePolicy;
  readonly #outcomes: RecordingOutcomes;
  #pending: PendingWrite[] = [];
  #flushScheduled = false;

  constructor(store: Store, policy: RecordFailurePolicy, log: FastifyBaseLogger) {
    this.#policy = policy;
    this.#outcomes = new RecordingOutcomes(log);
    this.#writer = new BatchWriter(store, (report) => this.#outcomes.ends(report));
  }

  get counters(): RecorderCounters {
    return this.#outcomes.counters;
  }

  begin(input: BeginCallInput): string {
    this.counters.callsStarted++;
    const callId = input.callId ?? randomUUID();
    this.#enqueue({ kind: 'begin', input: { ...input, callId } });
    return callId;
  }

  finish(callId: string, result: FinishCallInput): Promise<void> {
    return this.#finish(callId, result, this.#policy === 'refuse' ? 'mark-incomplete' : 'retry');
  }

  async finishQuietly(callId: string, result: FinishCallInput): Promise<void> {
    // the harness gets an error either way: the end says what it got, so a refused one is worth writing again
    await this.#finish(callId, result, 'retry').catch(() => undefined);
  }

  failedBeforeBegin(error: unknown): void {
    this.#outcomes.failedBeforeBegin(error);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  health(): RecorderHealth {
    return { healthy: true, mode: 'thread', ...this.#outcomes.failure() };
  }

  async close(): Promise<RecorderCloseReport> {
    this.flush();
    return { unfinishedCalls: this.#writer.close() };
  }

  /** Writes everything queued now. */
  flush(): void {
    this.#flushScheduled = false;
    const writes = this.#pending;
    this.#pending = [];
    if (writes.length === 0) return;
    const { committed, errors } = this.#writer.write(writes);
    if (committed) this.counters.batchesCommitted++;
    writes.forEach((write, index) => this.#settle(write, errors[index]));
  }

  #finish(callId: string, result: FinishCallInput, ifUnwritten: UnwrittenEnd): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#enqueue({ kind: 'finish', callId, result, ifUnwritten, done: (error) => settleFinish(this.#policy, error, resolve, reject) });
    });
  }

  #enqueue(write: PendingWrite): void {
    this.#pending.push(write);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  #settle(write: PendingWrite, error: unknown): void {
    this.#outcomes.settled(write, error, write.kind === 'finish' ? countTokens(write.result) : undefined);
    write.done?.(error);
  }
}
