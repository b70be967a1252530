import { isPostgresUrl, redactPostgresUrl, type Store } from '../../store/index.js';
import type { ViewerSummary } from '../viewer-api.js';

/**
 * GET /ui/api/summary (and each `change` event's data): counts over the whole store, a handful of cheap statements
 * (the store's row counts, open sessions, calls per status, groups, the newest call of the latest sessions).
 *
 * @example readViewerSummary(store, { storeLocation: './tokentap.db', tokenText: false, live: false }).calls
 */
export function readViewerSummary(store: Store, context: { storeLocation: string; tokenText: boolean; live: boolean }): ViewerSummary {
  const { sessions, calls } = store.stats();
  const postgres = isPostgresUrl(context.storeLocation);
  return {
    sessions,
    openSessions: store.countSessions({ status: 'open' }),
    calls,
    groups: store.countGroups(),
    callStatuses: store.countCallsByStatus(),
    lastCallAt: newestCallAt(store),
    tokenText: context.tokenText,
    store: { engine: postgres ? 'postgres' : 'sqlite', where: postgres ? redactPostgresUrl(context.storeLocation) : context.storeLocation },
    live: context.live,
  };
}

/** Sessions looked at for the newest call: the most recently active, so a rollout made but not yet called is passed. */
const NEWEST_SESSIONS = 20;

/**
 * The newest call's start, from the most recently active sessions (a session's activity is its newest call, or its
 * creation when later): no scan of the calls, which no index orders by start alone.
 */
function newestCallAt(store: Store): number | null {
  let newest: number | null = null;
  for (const session of store.listSessions({ limit: NEWEST_SESSIONS })) {
    if (session.lastCallAt !== null && (newest === null || session.lastCallAt > newest)) newest = session.lastCallAt;
  }
  return newest;
}
