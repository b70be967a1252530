import type { FastifyBaseLogger } from 'fastify';
import { BoundedLru } from '../../store/bounded-lru.js';
import type { RolloutRow, SessionEndWatch, Store } from '../../store/index.js';

/** Rollout rows and key owners a gateway keeps (each); past that the least recently used go. */
export const DEFAULT_KEPT_ROLLOUTS = 20_000;

/** What the cache did since the gateway started (rows read from the store, rows answered from memory). */
export interface RolloutReadCounts {
  reads: number;
  hits: number;
  /** whether rows are kept now: the store's session-end watch is live */
  live: boolean;
}

/**
 * The two store reads every model call's admission makes (admit-call.ts), kept in memory where the store can say
 * when a kept one goes stale. On PostgreSQL each read is a round trip that blocks the gateway's event loop (about
 * a millisecond on a busy host, before the call is forwarded: issue 17's latency and CPU targets). What a row holds
 * never changes once written except its status (and activity and end times), and a session's status changes only
 * when it ends, which the store's watch announces (PostgreSQL: schema 8's trigger and LISTEN, from any host):
 * - a session's rollout row is kept once read, and dropped when its end is announced, when this gateway ends it,
 *   and all of them whenever the watch is not live (its connection dropped: every read goes to the store, so a
 *   database that is away still refuses calls before they reach the backend, as readForCall promises);
 * - a session that has no row yet is never kept (another host may create it, with a key, at any time);
 * - a key's owner is kept once found (a key names one session for good).
 * The one window left: a call admitted on this gateway between another host's commit of the session's end and the
 * notice's arrival here (a millisecond or so), no wider than the one every call in flight at that end already has
 * (docs/scale-out.md). The row's `activityAt` is as first read. SQLite gives no watch: every read goes to the file,
 * which costs a lookup.
 *
 * @example
 * const cache = new RolloutReadCache(store, log);
 * const row = cache.rollout('s-1'); // read once; later calls answered from memory until s-1 ends
 */
export class RolloutReadCache {
  readonly #store: Store;
  readonly #rows = new BoundedLru<RolloutRow>(DEFAULT_KEPT_ROLLOUTS, () => 1);
  readonly #owners = new BoundedLru<string>(DEFAULT_KEPT_ROLLOUTS, () => 1);
  readonly #watch: SessionEndWatch | null;
  #reads = 0;
  #hits = 0;

  constructor(store: Store, log: FastifyBaseLogger) {
    this.#store = store;
    this.#watch = store.watchSessionEnds({
      ended: (sessionId) => this.#rows.delete(sessionId),
      liveChanged: (live) => {
        this.#rows.clear();
        if (live) log.debug('session ends are announced: rollout rows are kept between calls');
        else log.warn('the store no longer announces session ends: rollout rows are read for every call until it does again');
      },
    });
  }

  /** the session's rollout row (null: none yet), from memory where it is kept */
  rollout(sessionId: string): RolloutRow | null {
    const watch = this.#watch;
    if (watch?.live === true) {
      const kept = this.#rows.get(sessionId);
      if (kept !== undefined) {
        this.#hits++;
        return kept;
      }
    }
    this.#reads++;
    const row = this.#store.getRollout(sessionId);
    // live before and after: the read is synchronous, so no notice was handled between (a lost watch clears first)
    if (row !== null && watch?.live === true) this.#rows.set(sessionId, row);
    return row;
  }

  /** the session a key's hash belongs to (null: none), from memory once found */
  ownerOf(keyHash: Buffer): string | null {
    const key = keyHash.toString('hex');
    const kept = this.#owners.get(key);
    if (kept !== undefined) return kept;
    const owner = this.#store.findSessionByKeyHash(keyHash);
    if (owner !== null) this.#owners.set(key, owner);
    return owner;
  }

  /** this gateway changed the session's row (ended it): the next read goes to the store */
  forget(sessionId: string): void {
    this.#rows.delete(sessionId);
  }

  get counts(): RolloutReadCounts {
    return { reads: this.#reads, hits: this.#hits, live: this.#watch?.live === true };
  }

  async close(): Promise<void> {
    this.#rows.clear();
    await this.#watch?.close();
  }
}
