import type { BeginCallInput, FinishCallInput, Store } from '../../store/types.js';
import { isWriteConflict, mayHaveCommitted, mayHaveEndedTransaction as mayEndTransaction } from '../../store/store-failure-kinds.js';
import { elidePromptIdsFromStream } from './elide-prompt-ids.js';
import { EndRetries, type EndRetriesOptions, type EndsReport, type UnwrittenEnd } from './end-retries.js';

/** One queued store write of the recorder; a finish says what becomes of it if the store refuses it (default `retry`). */
export type RecorderWrite =
  | { kind: 'begin'; input: BeginCallInput & { callId: string } }
  | { kind: 'finish'; callId: string; result: FinishCallInput; ifUnwritten?: UnwrittenEnd };

/** Times the writes a deadlock or a serialization conflict rolled back are written again (each in a new transaction). */
export const CONFLICT_RETRIES = 5;

/** What became of a batch: one error per write (undefined when it was written) and whether it committed. */
export interface BatchOutcome {
  committed: boolean;
  errors: unknown[];
}

/**
 * Applies the recorder's queued writes to the store as one transaction (each write a savepoint, so one bad
 * write rolls back alone). Used on whichever thread records: the gateway's own (call-recorder.ts) or the
 * recording worker (record-worker.ts), so both modes store exactly the same thing. A refused end of a call whose
 * `in_progress` row is written goes to EndRetries (end-retries.ts), which reports through `onEnds`. Several gateways on
 * one PostgreSQL database: begins are applied first, by session (one lock order for all), and the writes PostgreSQL
 * rolled back to break a deadlock anyway are written again, up to CONFLICT_RETRIES times.
 *
 * @example const { errors } = new BatchWriter(store).write([{ kind: 'begin', input }, { kind: 'finish', callId, result }])
 */
export class BatchWriter {
  readonly #store: Store;
  /** calls whose `in_progress` row could not be written, with why: their end cannot be recorded either */
  readonly #unrecorded = new Map<string, unknown>();
  /**
   * calls whose begin's batch lost its connection, with why: it may have committed (mayHaveCommitted), so their end is
   * still written; an end that finds no row fails as the begin did
   */
  readonly #uncertain = new Map<string, unknown>();
  readonly #retries: EndRetries;

  constructor(store: Store, onEnds: (report: EndsReport) => void = () => undefined, retryOptions: EndRetriesOptions = {}) {
    this.#store = store;
    this.#retries = new EndRetries(store, onEnds, retryOptions);
  }

  /** Calls whose end is waiting to be written again (their rows `in_progress`). */
  get endsWaiting(): number {
    return this.#retries.waiting;
  }

  /** Writes the waiting ends once more, else marks them incomplete; returns the calls left `in_progress`. */
  close(): number {
    return this.#retries.close();
  }

  /** Calls whose end a recording thread that died held: marked incomplete once a write goes through (end-retries.ts). */
  markIncompleteLater(callIds: readonly string[]): void {
    this.#retries.markLater(callIds);
  }

  write(given: readonly RecorderWrite[]): BatchOutcome {
    const order = lockOrder(given);
    const writes = order.map((index) => given[index]!);
    const outcome = this.#writeOnce(writes);
    const { errors } = outcome;
    // PostgreSQL broke a deadlock between gateways by rolling this batch's write back (and the writes after it were not
    // tried: the batch stops at such a failure): written again, they wait for the other batch, which has committed
    for (let retry = 1; retry <= CONFLICT_RETRIES; retry++) {
      const again = writes.flatMap((write, index) => (isWriteConflict(errors[index]) && !this.#beginFailed(write) ? [index] : []));
      if (again.length === 0) break;
      const retried = this.#writeOnce(again.map((index) => writes[index]!));
      again.forEach((index, position) => (errors[index] = retried.errors[position]));
      outcome.committed ||= retried.committed;
    }
    this.#settle(writes, errors);
    const inGivenOrder: unknown[] = [];
    order.forEach((index, position) => (inGivenOrder[index] = errors[position]));
    return { committed: outcome.committed, errors: inGivenOrder };
  }

  /** The writes as one transaction: one error (or undefined) per write, and whether it committed. */
  #writeOnce(writes: readonly RecorderWrite[]): BatchOutcome {
    const own: unknown[] = [];
    const afterCommit: Array<(() => void) | undefined> = [];
    try {
      this.#store.batch(() => this.#applyAll(writes, own, afterCommit));
      // what each write learns once the batch committed (on PostgreSQL: whether an end found its call in progress)
      afterCommit.forEach((check, index) => {
        try {
          check?.();
        } catch (error) {
          own[index] = error;
        }
      });
      return { committed: true, errors: own };
    } catch (error) {
      // the batch did not commit: a write that failed keeps its own reason (SQLITE_FULL, ...), the rest share the commit's
      return { committed: false, errors: writes.map((_write, index) => own[index] ?? error) };
    }
  }

  /** A finish of a call whose begin failed in an earlier batch: it fails again whatever is tried. */
  #beginFailed(write: RecorderWrite): boolean {
    return write.kind === 'finish' && this.#unrecorded.has(write.callId);
  }

  /** Keeps the calls whose begin failed, hands the refused ends of begun calls to the retries, and words the error of an end whose begin failed after all (in `errors`). */
  #settle(writes: readonly RecorderWrite[], errors: unknown[]): void {
    writes.forEach((write, index) => {
      const error = errors[index];
      if (write.kind === 'begin') {
        if (error !== undefined) (mayHaveCommitted(error) ? this.#uncertain : this.#unrecorded).set(write.input.callId, error);
        return;
      }
      const uncertain = this.#uncertain.get(write.callId);
      this.#uncertain.delete(write.callId);
      if (uncertain !== undefined && isNoRowInProgress(error)) {
        // the begin had not committed after all: the end fails for the begin's reason
        errors[index] = beginFailed(write.callId, uncertain);
        return;
      }
      // a refused end whose begin was written (here or before, or perhaps) leaves an `in_progress` row: it must still end
      if (error !== undefined && !this.#unrecorded.has(write.callId))
        this.#retries.hold(write.callId, elideStream(write.result), error, write.ifUnwritten ?? 'retry');
      this.#unrecorded.delete(write.callId);
    });
  }

  /** Applies the writes in order, one error (or undefined) each into `own`, and what to check once committed into `afterCommit`. */
  #applyAll(writes: readonly RecorderWrite[], own: unknown[], afterCommit: Array<(() => void) | undefined>): void {
    let aborted: unknown;
    for (const write of writes) {
      // after a full disk or an I/O error SQLite may have rolled the whole transaction back: writing on would commit
      // each later write alone, outside the batch, while the batch reports them failed
      const applied = aborted === undefined ? this.#apply(write) : { error: aborted };
      own.push(applied.error);
      afterCommit.push(applied.afterCommit);
      if (aborted === undefined && mayEndTransaction(applied.error)) aborted = applied.error;
    }
  }

  /** Applies one write inside the batch; returns its error (its savepoint rolled back), or what to call once committed. */
  #apply(write: RecorderWrite): { error?: unknown; afterCommit?: () => void } {
    try {
      if (write.kind === 'begin') return { afterCommit: this.#store.beginCallLater(write.input) };
      if (this.#unrecorded.has(write.callId)) return { error: beginFailed(write.callId, this.#unrecorded.get(write.callId)) };
      return { afterCommit: this.#store.finishCallLater(write.callId, elideStream(write.result)) };
    } catch (error) {
      return { error };
    }
  }
}

/**
 * The order the writes are applied in: every begin first, by session id (a begin takes its session's row until the batch
 * commits: batches of several gateways taking them in one order cannot deadlock on them), then the finishes as given.
 */
function lockOrder(writes: readonly RecorderWrite[]): number[] {
  const indexes = writes.map((_write, index) => index);
  const sessionOf = (index: number): string | null => {
    const write = writes[index]!;
    return write.kind === 'begin' ? write.input.sessionId : null;
  };
  const begins = indexes.filter((index) => sessionOf(index) !== null);
  begins.sort((a, b) => (sessionOf(a)! < sessionOf(b)! ? -1 : sessionOf(a)! > sessionOf(b)! ? 1 : a - b));
  return [...begins, ...indexes.filter((index) => sessionOf(index) === null)];
}

/** The store found no row of the call (`STORE_CALL_NOT_FOUND`): it was never begun there. */
function isNoRowInProgress(error: unknown): boolean {
  return (error as { code?: unknown } | null | undefined)?.code === 'STORE_CALL_NOT_FOUND';
}

/** The end of a call whose begin failed fails for the same reason, with the same code (`SQLITE_FULL`, ...). */
function beginFailed(callId: string, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  const error = new Error(`call ${callId} has no in_progress row to finish (its begin failed: ${reason})`, { cause });
  return typeof code === 'string' ? Object.assign(error, { code }) : error;
}

/**
 * The raw stream is stored with its prompt ids elided (the call row holds them). Done here, on the writing
 * thread, because the regex runs over the whole stream: about 1.7 ms for a stream carrying 50,000 prompt ids.
 */
function elideStream(result: FinishCallInput): FinishCallInput {
  if (result.responseStream === null || result.responseStream === undefined) return result;
  return { ...result, responseStream: elidePromptIdsFromStream(result.responseStream) };
}
