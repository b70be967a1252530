import { reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import type { SessionReconstruction } from '../../reconstruct/reconstruct-options.js';
import { BoundedLru } from '../../store/bounded-lru.js';
import type { SessionRow, Store } from '../../store/index.js';
import type { DriftKindName } from '../viewer-api.js';
import type { ViewerTokenizer } from './viewer-options.js';

/** What the sessions table shows of a session's merge reconstruction. */
export interface SessionDrift {
  /** breaks per kind, only the kinds that occur */
  drift: Partial<Record<DriftKindName, number>>;
  samples: number;
}

/** Sessions whose drift is remembered (each entry a few dozen bytes). */
const CACHED_SESSIONS = 100_000;

/**
 * Each session's chain breaks under the merge strategy, reconstructed once and remembered while the session does not
 * change: the key is its id with its call count, newest call and calls per status (a call that ends changes the
 * last), so a live session is reconstructed again after each call, a finished one never. A `drift` filter reads
 * every session the other filters take through this (docs/viewer.md, "Costs").
 *
 * @example const drift = new SessionDriftCache(store, tokenizer); drift.of(session).drift['history-edited']
 */
export class SessionDriftCache {
  readonly #store: Store;
  readonly #tokenizer: ViewerTokenizer | undefined;
  readonly #entries = new BoundedLru<SessionDrift>(CACHED_SESSIONS, () => 1);

  constructor(store: Store, tokenizer: ViewerTokenizer | undefined) {
    this.#store = store;
    this.#tokenizer = tokenizer;
  }

  of(session: SessionRow): SessionDrift {
    const key = cacheKey(session);
    const known = this.#entries.get(key);
    if (known !== undefined) return known;
    const drift = summarizeDrift(this.report(session.id));
    this.#entries.set(key, drift);
    return drift;
  }

  /** the merge reconstruction of a session, with texts at the breaks when a tokenizer is at hand */
  report(sessionId: string): SessionReconstruction {
    return reconstructSessionReport(this.#store, sessionId, {
      strategy: 'merge',
      ...(this.#tokenizer === undefined ? {} : { tokenizer: this.#tokenizer }),
    });
  }

  /** remembers what a reconstruction made elsewhere (the session page reconstructs anyway) */
  remember(session: SessionRow, report: SessionReconstruction): SessionDrift {
    const drift = summarizeDrift(report);
    this.#entries.set(cacheKey(session), drift);
    return drift;
  }
}

/** What a session's reconstruction depends on, as far as its row tells: another call, a newer one, a call that ended. */
function cacheKey(session: SessionRow): string {
  return `${session.id}\u0000${session.callCount}\u0000${session.lastCallAt}\u0000${JSON.stringify(session.statusCounts)}`;
}

function summarizeDrift(report: SessionReconstruction): SessionDrift {
  const drift: Partial<Record<DriftKindName, number>> = {};
  for (const [kind, count] of Object.entries(report.driftCounts)) if (count > 0) drift[kind as DriftKindName] = count;
  return { drift, samples: report.samples.length };
}
