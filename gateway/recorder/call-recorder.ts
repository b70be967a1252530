import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { BeginCallInput, FinishCallInput, Store } from '../../store/types.js';
import { TokentapError } from '../errors/tokentap-error.js';

export type RecordFailurePolicy = 'refuse' | 'serve';

/** Counters surfaced on /healthz (and /metrics later). */
export interface RecorderCounters {
  callsStarted: number;
  callsRecorded: number;
  recordingFailures: number;
  /** transactions committed; with many calls in flight one transaction carries many writes */
  batchesCommitted: number;
}

type PendingWrite =
  | { kind: 'begin'; input: BeginCallInput & { callId: string } }
  | { kind: 'finish'; callId: string; result: FinishCallInput; done: (error: unknown) => void };

/**
 * The gateway's only writer to the store. Writes are queued and committed together on the next turn of the
 * event loop (group commit): a call's `in_progress` row is written while the backend works, off the hot path,
 * and the end of every call finishing in the same moment shares one transaction. `finish` resolves only once
 * its transaction has committed, so a response the harness received in full is always in the store.
 * A failed write is never silent: it is counted and logged, and under the `refuse` policy `finish` rejects
 * with TT_RECORDING_FAILED so the response is withheld.
 *
 * @example
 * const callId = recorder.begin(input);          // returns at once; the row is written on the next tick
 * await recorder.finish(callId, result);         // committed before the last byte goes out
 */
export class CallRecorder {
  readonly counters: RecorderCounters = { callsStarted: 0, callsRecorded: 0, recordingFailures: 0, batchesCommitted: 0 };
  readonly #store: Store;
  readonly #policy: RecordFailurePolicy;
  readonly #log: FastifyBaseLogger;
  #pending: PendingWrite[] = [];
  #flushScheduled = false;
  /** calls whose `in_progress` row could not be written: their end cannot be recorded either */
  readonly #unrecorded = new Set<string>();

  constructor(store: Store, policy: RecordFailurePolicy, log: FastifyBaseLogger) {
    this.#store = store;
    this.#policy = policy;
    this.#log = log;
  }

  /** Queues the call's `in_progress` row and returns its id at once. */
  begin(input: BeginCallInput): string {
    this.counters.callsStarted++;
    const callId = input.callId ?? randomUUID();
    this.#enqueue({ kind: 'begin', input: { ...input, callId } });
    return callId;
  }

  /** Commits the call's end. Under `refuse`, a failed write rejects so the response is not completed. */
  finish(callId: string, result: FinishCallInput): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#enqueue({
        kind: 'finish', callId, result, done: (error) => {
          if (error === undefined) resolve();
          else if (this.#policy === 'refuse') reject(new TokentapError('TT_RECORDING_FAILED', { cause: error }));
          else resolve();
        },
      });
    });
  }

  /** Like finish, for paths where the harness gets an error anyway: never rejects. */
  async finishQuietly(callId: string, result: FinishCallInput): Promise<void> {
    await this.finish(callId, result).catch(() => undefined);
  }

  /** Writes everything queued now (also used at shutdown). */
  flush(): void {
    this.#flushScheduled = false;
    const writes = this.#pending;
    this.#pending = [];
    if (writes.length === 0) return;
    const outcomes = new Map<PendingWrite, unknown>();
    try {
      this.#store.batch(() => {
        for (const write of writes) outcomes.set(write, this.#apply(write));
      });
      this.counters.batchesCommitted++;
    } catch (error) {
      // the batch did not commit: every write in it failed
      for (const write of writes) outcomes.set(write, error);
    }
    for (const write of writes) this.#settle(write, outcomes.get(write));
  }

  #enqueue(write: PendingWrite): void {
    this.#pending.push(write);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Applies one write inside the batch; returns its error (its savepoint rolled back) or undefined. */
  #apply(write: PendingWrite): unknown {
    try {
      if (write.kind === 'begin') this.#store.beginCall(write.input);
      else if (this.#unrecorded.has(write.callId)) return new Error(`call ${write.callId} has no in_progress row to finish`);
      else this.#store.finishCall(write.callId, write.result);
      return undefined;
    } catch (error) {
      return error;
    }
  }

  #settle(write: PendingWrite, error: unknown): void {
    const callId = write.kind === 'begin' ? write.input.callId : write.callId;
    if (error !== undefined) {
      this.counters.recordingFailures++;
      this.#log.error({ err: error, stage: write.kind, callId }, 'recording failed');
      if (write.kind === 'begin') this.#unrecorded.add(callId);
    }
    if (write.kind === 'finish') {
      this.#unrecorded.delete(callId);
      if (error === undefined) this.counters.callsRecorded++;
      write.done(error);
    }
  }
}
