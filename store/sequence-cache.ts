/**
 * Recently used full token sequences of calls (prompt ++ completion), so writing the next turn of a
 * session finds its prompt's parent without decoding delta chains, and reading a session in order
 * stops each chain walk one step up. Evicts least recently used entries past a budget of ids.
 *
 * Entries are immutable facts (a finished call never changes), so the cache is never stale; it is
 * only ever incomplete, which costs speed, not correctness. Arrays held here are never handed out.
 */

/** About 64 MB of Int32 ids. */
export const DEFAULT_SEQUENCE_CACHE_IDS = 16 * 1024 * 1024;

export interface CachedSequence {
  /** prompt ids followed by completion ids */
  base: Int32Array;
  promptLength: number;
}

export class SequenceCache {
  readonly maxIds: number;
  #entries = new Map<string, CachedSequence>();
  #heldIds = 0;

  constructor(maxIds = DEFAULT_SEQUENCE_CACHE_IDS) {
    this.maxIds = maxIds;
  }

  get(callId: string): CachedSequence | undefined {
    const entry = this.#entries.get(callId);
    if (entry === undefined) return undefined;
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    this.#entries.delete(callId);
    this.#entries.set(callId, entry);
    return entry;
  }

  /** Caches a sequence the caller will not mutate afterwards. */
  set(callId: string, entry: CachedSequence): void {
    this.delete(callId);
    if (entry.base.length > this.maxIds) return;
    this.#entries.set(callId, entry);
    this.#heldIds += entry.base.length;
    for (const [oldestId] of this.#entries) {
      if (this.#heldIds <= this.maxIds) break;
      this.delete(oldestId);
    }
  }

  delete(callId: string): void {
    const entry = this.#entries.get(callId);
    if (entry === undefined) return;
    this.#entries.delete(callId);
    this.#heldIds -= entry.base.length;
  }

  clear(): void {
    this.#entries.clear();
    this.#heldIds = 0;
  }
}
