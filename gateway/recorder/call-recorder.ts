import type { FastifyBaseLogger } from 'fastify';
import type { BeginCallInput, FinishCallInput, Store } from '../../store/types.js';
import { TokentapError } from '../errors/tokentap-error.js';

export type RecordFailurePolicy = 'refuse' | 'serve';

/** Counters surfaced on /healthz (and /metrics later). */
export interface RecorderCounters {
  callsStarted: number;
  callsRecorded: number;
  recordingFailures: number;
}

/**
 * The gateway's only writer to the store. A failed write is never silent: it is counted and logged, and
 * under the `refuse` policy the call is refused (before the backend is asked) or its response withheld
 * (before the last byte), so a response the harness received in full is always in the store.
 *
 * @example
 * const callId = recorder.begin(input);          // throws TT_RECORDING_FAILED under 'refuse'
 * recorder.finish(callId, result);               // commits before the last byte goes out
 */
export class CallRecorder {
  readonly counters: RecorderCounters = { callsStarted: 0, callsRecorded: 0, recordingFailures: 0 };
  readonly #store: Store;
  readonly #policy: RecordFailurePolicy;
  readonly #log: FastifyBaseLogger;

  constructor(store: Store, policy: RecordFailurePolicy, log: FastifyBaseLogger) {
    this.#store = store;
    this.#policy = policy;
    this.#log = log;
  }

  /** Returns the call id, or null when the row could not be written and the policy is `serve`. */
  begin(input: BeginCallInput): string | null {
    this.counters.callsStarted++;
    try {
      return this.#store.beginCall(input).callId;
    } catch (error) {
      this.#fail(error, 'begin', input.sessionId);
      return null;
    }
  }

  /** Commits the call's end. Under `refuse`, a failed commit throws so the response is not completed. */
  finish(callId: string | null, result: FinishCallInput): void {
    if (callId === null) return;
    try {
      this.#store.finishCall(callId, result);
      this.counters.callsRecorded++;
    } catch (error) {
      this.#fail(error, 'finish', callId);
    }
  }

  /** Like finish, for paths where the harness gets an error anyway: never throws. */
  finishQuietly(callId: string | null, result: FinishCallInput): void {
    try {
      this.finish(callId, result);
    } catch {
      // already counted and logged by #fail
    }
  }

  #fail(error: unknown, stage: 'begin' | 'finish', subject: string): void {
    this.counters.recordingFailures++;
    this.#log.error({ err: error, stage, subject }, 'recording failed');
    if (this.#policy === 'refuse') throw new TokentapError('TT_RECORDING_FAILED', { cause: error });
  }
}
