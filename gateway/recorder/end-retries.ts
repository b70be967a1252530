import type { FinishCallInput, Store } from '../../store/types.js';
import { isPassingStoreFailure as isPassing } from '../../store/store-failure-kinds.js';
import { countTokens } from './count-tokens.js';

/**
 * What becomes of a call's end that the store refused while its `in_progress` row is written: `retry` writes it again
 * in full (the harness got what the end says); `mark-incomplete` only marks the call incomplete (under `refuse` the
 * harness got TT_RECORDING_FAILED instead of the response, so an `ok` row would claim what it never received).
 */
export type UnwrittenEnd = 'retry' | 'mark-incomplete';

/** What the end retries did since the last report, and how many calls still wait (their rows `in_progress`). */
export interface EndsReport {
  waiting: number;
  /** ends written in full on a retry, and their token ids */
  recorded: number;
  promptTokens: number;
  completionTokens: number;
  /** calls marked `incomplete` because their end could not be written */
  markedIncomplete: number;
}

/** The first retry comes this soon after the failure; each failed round doubles the wait, up to the max. */
export const END_RETRY_FIRST_MS = 100;
export const END_RETRY_MAX_INTERVAL_MS = 5_000;
/** How long an end is retried in full before its call is only marked incomplete. */
export const DEFAULT_END_RETRY_FOR_MS = 5 * 60_000;
/** Ends held in full at most (each keeps its bodies in memory); past it a failed end only marks its call incomplete. */
export const DEFAULT_MAX_HELD_ENDS = 1_000;

export interface EndRetriesOptions {
  retryForMs?: number;
  maxHeld?: number;
}

interface HeldEnd {
  /** null: only the `incomplete` mark is left to write */
  result: FinishCallInput | null;
  since: number;
}

/**
 * The ends of calls whose `in_progress` row is in the store but whose end the store refused (a full disk, an I/O
 * error): without this the row stays `in_progress` while the gateway runs, since the sweep for calls of dead gateways
 * skips a live one's (issue 12, item 5). Runs on the writing thread, beside the BatchWriter that hands it the ends.
 * Retries with backoff: an end is written in full when the store takes it again; one it cannot take (refused for
 * good, retried past `retryForMs`, past `maxHeld`, or `mark-incomplete`) marks its call `incomplete` as soon as a
 * write goes through. `close()` tries once more and returns how many calls are left `in_progress`.
 *
 * @example
 * const retries = new EndRetries(store, (report) => post(report));
 * retries.hold(callId, result, error, 'retry'); // SQLITE_FULL: written again once the disk has room
 */
export class EndRetries {
  readonly #store: Store;
  readonly #onReport: (report: EndsReport) => void;
  readonly #retryForMs: number;
  readonly #maxHeld: number;
  /** in the order they are tried: a round stops at the first end the store still refuses and moves it last */
  readonly #held = new Map<string, HeldEnd>();
  #heldInFull = 0;
  #timer: NodeJS.Timeout | null = null;
  #failedRounds = 0;

  constructor(store: Store, onReport: (report: EndsReport) => void, options: EndRetriesOptions = {}) {
    this.#store = store;
    this.#onReport = onReport;
    this.#retryForMs = options.retryForMs ?? DEFAULT_END_RETRY_FOR_MS;
    this.#maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD_ENDS;
  }

  get waiting(): number {
    return this.#held.size;
  }

  /** Takes an end the store refused with `error`; ends of calls not in progress (not found, finished) are dropped. */
  hold(callId: string, result: FinishCallInput, error: unknown, ifUnwritten: UnwrittenEnd): void {
    if (isEnded(error) || this.#held.has(callId)) return;
    const inFull = ifUnwritten === 'retry' && isPassing(error) && this.#heldInFull < this.#maxHeld;
    if (inFull) this.#heldInFull++;
    this.#held.set(callId, { result: inFull ? result : null, since: Date.now() });
    this.#report(emptyReport());
    this.#schedule();
  }

  /**
   * Takes calls whose end is lost (held by a recording thread that died): each is marked incomplete as soon as a write
   * goes through; a call no longer in progress is left as it is. Tried at once, then with the same backoff.
   */
  markLater(callIds: readonly string[]): void {
    const since = Date.now();
    for (const callId of callIds) if (!this.#held.has(callId)) this.#held.set(callId, { result: null, since });
    this.#round(false);
    this.#schedule();
  }

  /** One last round: ends the store takes are written, the rest marked incomplete; returns the calls left in progress. */
  close(): number {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#held.size > 0) this.#round(true);
    return this.#held.size;
  }

  #schedule(): void {
    if (this.#timer !== null || this.#held.size === 0) return;
    const delay = Math.min(END_RETRY_FIRST_MS * 2 ** this.#failedRounds, END_RETRY_MAX_INTERVAL_MS);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#round(false);
      this.#schedule();
    }, delay);
    this.#timer.unref(); // the gateway's server (or the worker's port) keeps the thread alive, not a retry
  }

  #round(final: boolean): void {
    const report = emptyReport();
    const now = Date.now();
    const toMark: string[] = [];
    let refused = false;
    for (const [callId, held] of [...this.#held]) {
      const inFull = held.result !== null && (final || now - held.since < this.#retryForMs);
      if (inFull && !refused) {
        const outcome = this.#writeInFull(callId, held.result!, report);
        if (outcome === 'written') continue;
        if (outcome === 'refused') {
          // the store is still full: the others wait for the next round, this one goes last
          refused = true;
          this.#held.delete(callId);
          this.#held.set(callId, held);
          if (!final) continue;
        }
      } else if (inFull && !final) continue;
      toMark.push(callId);
    }
    if (toMark.length > 0) this.#mark(toMark, report);
    this.#failedRounds = report.recorded + report.markedIncomplete > 0 ? 0 : this.#failedRounds + 1;
    this.#report(report);
  }

  #writeInFull(callId: string, result: FinishCallInput, report: EndsReport): 'written' | 'refused' | 'never' {
    try {
      this.#store.finishCall(callId, result);
    } catch (error) {
      if (isEnded(error)) {
        this.#forget(callId);
        return 'written';
      }
      return isPassing(error) ? 'refused' : 'never';
    }
    this.#forget(callId);
    const tokens = countTokens(result);
    report.recorded++;
    report.promptTokens += tokens.prompt;
    report.completionTokens += tokens.completion;
    return 'written';
  }

  #mark(callIds: string[], report: EndsReport): void {
    let marked: number;
    try {
      marked = this.#store.markCallsIncomplete(callIds);
    } catch {
      return; // still refused: the next round tries again
    }
    for (const callId of callIds) this.#forget(callId);
    // a call already ended (or never begun: a dead thread's orphaned end) is not counted
    report.markedIncomplete += marked;
  }

  #forget(callId: string): void {
    const held = this.#held.get(callId);
    if (held !== undefined && held.result !== null) this.#heldInFull--;
    this.#held.delete(callId);
  }

  #report(report: EndsReport): void {
    this.#onReport({ ...report, waiting: this.#held.size });
  }
}

function emptyReport(): EndsReport {
  return { waiting: 0, recorded: 0, promptTokens: 0, completionTokens: 0, markedIncomplete: 0 };
}

/** The call has no row in progress: nothing is stuck. */
function isEnded(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return code === 'STORE_CALL_NOT_FOUND' || code === 'STORE_CALL_ALREADY_FINISHED';
}
