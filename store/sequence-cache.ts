import { BoundedLru } from './bounded-lru.js';

/**
 * Recently used full token sequences of calls (prompt ++ completion), so writing the next turn of a
 * session finds its prompt's parent without decoding delta chains, and reading single calls in order
 * stops each chain walk one step up (a whole session is read through arenas instead: session-arena.ts).
 * Evicts least recently used entries past a budget of ids.
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

export class SequenceCache extends BoundedLru<CachedSequence> {
  constructor(maxIds = DEFAULT_SEQUENCE_CACHE_IDS) {
    super(maxIds, (entry) => entry.base.length);
  }

  /** the budget, in ids */
  get maxIds(): number {
    return this.maxUnits;
  }
}
