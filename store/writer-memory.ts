import { BoundedLru } from './bounded-lru.js';
import { DEFAULT_PROMPT_PARENT_CANDIDATES, type PromptCandidate } from './prompt-delta.js';

/** Calls begun and not yet finished that the writer remembers (a call never finished is forgotten past this many). */
export const DEFAULT_REMEMBERED_CALLS = 100_000;
/** Sessions whose newest prompts the writer remembers. */
export const DEFAULT_REMEMBERED_SESSIONS = 20_000;

/** What the writer wrote at a call's begin and needs at its end. */
export interface BegunCall {
  sessionId: string;
  /** the metadata JSON written at begin, which the end merges its own into */
  metadata: string;
  /** the call's seq, once its begin committed (throws if its transaction did not) */
  seq: () => number;
}

/**
 * What a call writer remembers of its own writes, so that a call's end needs no read before its update (issue 17: on
 * PostgreSQL the end is then one round trip, its statements sent with the COMMIT): each begun call's session and
 * metadata, and each session's newest calls with a committed prompt (the prompt parent's candidates). What it does
 * not remember (a call begun by another connection, a session another gateway wrote) is read as before. Nothing
 * here decides what is written without a check: an end whose call was not `in_progress` changes no row and throws
 * once its transaction committed (call-writer.ts), and a candidate is only ever a call whose end committed here, so
 * a remembered parent is a correct one, at worst not the newest (a session shared with another gateway meanwhile:
 * a longer tail, never a wrong prompt).
 *
 * @example
 * const memory = new WriterMemory();
 * memory.begun('c-1', { sessionId: 's-1', metadata: '{}', seq: () => 1 });
 * memory.finished('c-1', 's-1', 1_064, null);
 */
export class WriterMemory {
  readonly #calls = new BoundedLru<BegunCall>(DEFAULT_REMEMBERED_CALLS, () => 1);
  readonly #sessions = new BoundedLru<readonly PromptCandidate[]>(DEFAULT_REMEMBERED_SESSIONS, () => 1);

  begun(callId: string, call: BegunCall): void {
    this.#calls.set(callId, call);
  }

  call(callId: string): BegunCall | undefined {
    return this.#calls.get(callId);
  }

  /**
   * The session's parent candidates, newest first, when known: remembered, or none at all when the call being finished
   * is its session's first (seq 1: no earlier call exists). Undefined: read them.
   */
  candidates(sessionId: string, call: BegunCall): readonly PromptCandidate[] | undefined {
    const remembered = this.#sessions.get(sessionId);
    if (remembered !== undefined) return remembered;
    try {
      return call.seq() === 1 ? [] : undefined;
    } catch {
      return undefined; // the begin's transaction did not commit: the end fails on its own
    }
  }

  /**
   * A call's end committed: it is its session's newest candidate (`baseLength` ids, or none without a prompt).
   * `known`: the candidates the end chose among (remembered or read), null when it had none to choose.
   */
  finished(callId: string, sessionId: string, baseLength: number | null, known: readonly PromptCandidate[] | null): void {
    this.#calls.delete(callId);
    const before = known ?? this.#sessions.get(sessionId);
    if (before === undefined) return;
    const next = baseLength === null ? before : [{ id: callId, baseLength }, ...before.filter((candidate) => candidate.id !== callId)];
    this.#sessions.set(sessionId, next.slice(0, DEFAULT_PROMPT_PARENT_CANDIDATES));
  }

  /** A call's end did not change its row (it was not `in_progress`): nothing of it is remembered. */
  forget(callId: string): void {
    this.#calls.delete(callId);
  }

  clear(): void {
    this.#calls.clear();
    this.#sessions.clear();
  }
}
