import type { BeginCallInput, FinishCallInput, Store } from '../../store/types.js';
import { elidePromptIdsFromStream } from './elide-prompt-ids.js';

/** One queued store write of the recorder. */
export type RecorderWrite =
  | { kind: 'begin'; input: BeginCallInput & { callId: string } }
  | { kind: 'finish'; callId: string; result: FinishCallInput };

/** What became of a batch: one error per write (undefined when it was written) and whether it committed. */
export interface BatchOutcome {
  committed: boolean;
  errors: unknown[];
}

/**
 * Applies the recorder's queued writes to the store as one transaction (each write a savepoint, so one bad
 * write rolls back alone). Used on whichever thread records: the gateway's own (call-recorder.ts) or the
 * recording worker (record-worker.ts), so both modes store exactly the same thing.
 *
 * @example const { errors } = new BatchWriter(store).write([{ kind: 'begin', input }, { kind: 'finish', callId, result }])
 */
export class BatchWriter {
  readonly #store: Store;
  /** calls whose `in_progress` row could not be written: their end cannot be recorded either */
  readonly #unrecorded = new Set<string>();

  constructor(store: Store) {
    this.#store = store;
  }

  write(writes: readonly RecorderWrite[]): BatchOutcome {
    let errors: unknown[] = [];
    let committed = false;
    try {
      this.#store.batch(() => {
        errors = writes.map((write) => this.#apply(write));
      });
      committed = true;
    } catch (error) {
      // the batch did not commit: every write in it failed
      errors = writes.map(() => error);
    }
    writes.forEach((write, index) => {
      if (write.kind === 'finish') this.#unrecorded.delete(write.callId);
      else if (errors[index] !== undefined) this.#unrecorded.add(write.input.callId);
    });
    return { committed, errors };
  }

  /** Applies one write inside the batch; returns its error (its savepoint rolled back) or undefined. */
  #apply(write: RecorderWrite): unknown {
    try {
      if (write.kind === 'begin') this.#store.beginCall(write.input);
      else if (this.#unrecorded.has(write.callId)) return new Error(`call ${write.callId} has no in_progress row to finish`);
      else this.#store.finishCall(write.callId, elideStream(write.result));
      return undefined;
    } catch (error) {
      return error;
    }
  }
}

/**
 * The raw stream is stored with its prompt ids elided (the call row holds them). Done here, on the writing
 * thread, because the regex runs over the whole stream: about 1.7 ms for a stream carrying 50,000 prompt ids.
 */
function elideStream(result: FinishCallInput): FinishCallInput {
  if (result.responseStream === null || result.responseStream === undefined) return result;
  return { ...result, responseStream: elidePromptIdsFromStream(result.responseStream) };
}
