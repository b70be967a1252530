import type { FastifyBaseLogger } from 'fastify';
import type { RecorderWrite } from './batch-writer.js';
import type { EndsReport } from './end-retries.js';
import type { RecorderCounters, RecordingFailureState } from './recorder.js';
import type { TokenCounts } from './count-tokens.js';

/** While a burst lasts, the failure is logged again this often (with the count so far), not once per call. */
const REMINDER_MS = 60_000;

/**
 * What became of each write, for both recorders: the counters (/healthz, /metrics) and the failure log. A failed
 * write is never silent, but a full disk fails every call: the first failure of a burst is logged at error level,
 * the rest only counted (with a reminder each minute), and the first success after it logs that recording works
 * again. `failure()` tells /healthz whether the last write failed (status `degraded`).
 *
 * @example
 * const outcomes = new RecordingOutcomes(log);
 * outcomes.settled(write, error, countTokens(result));
 */
export class RecordingOutcomes {
  readonly counters: RecorderCounters = {
    callsStarted: 0,
    callsRecorded: 0,
    recordingFailures: 0,
    batchesCommitted: 0,
    promptTokensRecorded: 0,
    completionTokensRecorded: 0,
    endsRetried: 0,
    callsMarkedIncomplete: 0,
  };
  readonly #log: FastifyBaseLogger;
  #failing = false;
  #burstFailures = 0;
  #lastLoggedAt = 0;
  #lastFailure: RecordingFailureState['lastFailure'] = null;
  #endsWaiting = 0;

  constructor(log: FastifyBaseLogger) {
    this.#log = log;
  }

  settled(write: RecorderWrite, error: unknown, tokens: TokenCounts | undefined): void {
    const callId = write.kind === 'begin' ? write.input.callId : write.callId;
    if (error !== undefined) {
      this.#failed(error, write.kind, callId);
      return;
    }
    this.#worksAgain();
    if (write.kind !== 'finish') return;
    this.counters.callsRecorded++;
    this.counters.promptTokensRecorded += tokens?.prompt ?? 0;
    this.counters.completionTokensRecorded += tokens?.completion ?? 0;
  }

  /** A call refused before its begin was queued: the store could not be read for its admission. */
  failedBeforeBegin(error: unknown): void {
    this.#failed(error, 'begin', null);
  }

  /** What the end retries on the writing thread did (end-retries.ts): ends written late, calls marked incomplete. */
  ends(report: EndsReport): void {
    this.#endsWaiting = report.waiting;
    if (report.recorded + report.markedIncomplete === 0) return;
    this.counters.callsRecorded += report.recorded;
    this.counters.endsRetried += report.recorded;
    this.counters.promptTokensRecorded += report.promptTokens;
    this.counters.completionTokensRecorded += report.completionTokens;
    this.counters.callsMarkedIncomplete += report.markedIncomplete;
    this.#worksAgain();
    const fields = { recorded: report.recorded, markedIncomplete: report.markedIncomplete, stillWaiting: report.waiting };
    if (report.markedIncomplete > 0) this.#log.warn(fields, 'calls whose end could not be written are marked incomplete');
    else this.#log.info(fields, 'ends the store had refused are recorded');
  }

  /** Whether the newest write failed, the newest failure, and the ends waiting for a retry. */
  failure(): RecordingFailureState {
    return { failing: this.#failing, lastFailure: this.#lastFailure === null ? null : { ...this.#lastFailure }, endsWaiting: this.#endsWaiting };
  }

  #worksAgain(): void {
    if (!this.#failing) return;
    this.#log.warn({ failures: this.#burstFailures, since: this.#lastFailure?.at }, 'recording works again');
    this.#failing = false;
  }

  #failed(error: unknown, stage: RecorderWrite['kind'], callId: string | null): void {
    const now = Date.now();
    this.counters.recordingFailures++;
    const code = (error as { code?: unknown } | null)?.code;
    this.#lastFailure = {
      at: now,
      stage,
      code: typeof code === 'string' ? code : null,
      message: error instanceof Error ? error.message : String(error),
    };
    if (!this.#failing) {
      this.#failing = true;
      this.#burstFailures = 0;
    }
    this.#burstFailures++;
    if (this.#burstFailures === 1) {
      this.#lastLoggedAt = now;
      this.#log.error({ err: error, stage, callId }, 'recording failed');
    } else if (now - this.#lastLoggedAt >= REMINDER_MS) {
      this.#lastLoggedAt = now;
      this.#log.error({ err: error, stage, callId, failures: this.#burstFailures }, 'recording still failing');
    } else {
      this.#log.debug({ err: error, stage, callId }, 'recording failed');
    }
  }
}
