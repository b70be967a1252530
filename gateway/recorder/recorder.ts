import type { BeginCallInput, FinishCallInput } from '../../store/types.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';

export type RecordFailurePolicy = 'refuse' | 'serve';

/** Counters surfaced on /healthz and /metrics. */
export interface RecorderCounters {
  callsStarted: number;
  callsRecorded: number;
  recordingFailures: number;
  /** transactions committed; with many calls in flight one transaction carries many writes */
  batchesCommitted: number;
  /** prompt / completion token ids of the calls recorded */
  promptTokensRecorded: number;
  completionTokensRecorded: number;
  /** ends the store refused at first and took on a retry (counted in callsRecorded too) */
  endsRetried: number;
  /** calls marked `incomplete` while the gateway ran because their end could not be written */
  callsMarkedIncomplete: number;
}

/** Whether recording is failing now (disk full, read-only, ...), for /healthz's `degraded`. */
export interface RecordingFailureState {
  /** the newest write failed; the first one that succeeds clears it */
  failing: boolean;
  /** the newest failed write: when, at which stage, the driver's code (`SQLITE_FULL`, `SQLITE_READONLY`, ...) */
  lastFailure: { at: number; stage: 'begin' | 'finish'; code: string | null; message: string } | null;
  /** calls whose `in_progress` row is written but whose end the store refused, waiting for a retry (degraded while > 0) */
  endsWaiting: number;
}

/** What `close()` left behind. */
export interface RecorderCloseReport {
  /** calls left `in_progress` (their end could not be written, nor the `incomplete` mark); the next start marks them */
  unfinishedCalls: number;
}

/** The recording thread's state (worker mode only). */
export interface RecordWorkerHealth {
  /** `starting` until the thread has opened the store; `failed` once it is given up on (nothing is recorded) */
  state: 'starting' | 'running' | 'failed' | 'closed';
  /** times the thread died while the gateway ran */
  crashes: number;
  /** times a new thread was started after a crash */
  restarts: number;
  lastCrash: { at: number; message: string } | null;
}

/** What /healthz reports about recording. */
export interface RecorderHealth extends RecordingFailureState {
  /** false when calls cannot be recorded at all (the recording thread is down for good) */
  healthy: boolean;
  /** `worker`: store writes run on their own thread; `thread`: on the gateway's event loop */
  mode: 'worker' | 'thread';
  worker?: RecordWorkerHealth;
}

/**
 * The gateway's only writer to the store, whichever thread it writes on (call-recorder.ts on the gateway's
 * thread, worker-call-recorder.ts on a worker). Writes are queued and committed together (group commit): a call's
 * `in_progress` row is written while the backend works, and `finish` resolves only once its transaction has
 * committed, so a response the harness received in full is always in the store. Prompt ids in a call's raw
 * stream are elided on the writing thread (batch-writer.ts), the same in both modes.
 * A failed write is never silent: it is counted and logged, and under the `refuse` policy `finish` rejects
 * with TT_RECORDING_FAILED so the response is withheld. A refused end of a call whose row is written is retried on
 * the writing thread until the call reaches a final status (end-retries.ts).
 *
 * @example
 * const callId = recorder.begin(input);          // returns at once; the row is written on the next tick
 * await recorder.finish(callId, result);         // committed before the last byte goes out
 */
export interface Recorder {
  readonly counters: RecorderCounters;
  /** Queues the call's `in_progress` row and returns its id at once. */
  begin(input: BeginCallInput): string;
  /** Commits the call's end. Under `refuse`, a failed write rejects so the response is not completed. */
  finish(callId: string, result: FinishCallInput): Promise<void>;
  /** Like finish, for paths where the harness gets an error anyway: never rejects. */
  finishQuietly(callId: string, result: FinishCallInput): Promise<void>;
  /**
   * Counts a call refused before it could begin because the store could not be read (PostgreSQL away; admit-call.ts):
   * a failed write for /healthz, /metrics and the log (stage `begin`), though nothing was queued.
   */
  failedBeforeBegin(error: unknown): void;
  /** Resolves once writes can be committed (the recording thread opened the store); rejects if it cannot. */
  ready(): Promise<void>;
  health(): RecorderHealth;
  /**
   * Commits everything queued, tries the ends still waiting once more (else marks them incomplete), then stops (the
   * recording thread exits); resolves with how many calls were left `in_progress`.
   */
  close(): Promise<RecorderCloseReport>;
}

/**
 * Settles a `finish` promise by the record-failure policy: under `refuse` a failed write rejects with
 * TT_RECORDING_FAILED (the harness gets an error instead of the last byte); under `serve` it resolves.
 *
 * @example settleFinish('refuse', error, resolve, reject)
 */
export function settleFinish(policy: RecordFailurePolicy, error: unknown, resolve: () => void, reject: (error: unknown) => void): void {
  if (error === undefined || policy === 'serve') resolve();
  else reject(new TokentapError('TT_RECORDING_FAILED', { cause: error }));
}
