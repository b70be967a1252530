import { isPostgresUrl, redactPostgresUrl, type Store } from '../../store/index.js';
import type { ViewerSummary } from '../viewer-api.js';

/**
 * GET /ui/api/summary (and each `change` event's data): counts over the whole store, a handful of cheap statements
 * (the store's row counts, open sessions, calls per status, groups, the newest session's last call).
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
    lastCallAt: store.listSessions({ limit: 1 })[0]?.lastCallAt ?? null,
    tokenText: context.tokenText,
    store: { engine: postgres ? 'postgres' : 'sqlite', where: postgres ? redactPostgresUrl(context.storeLocation) : context.storeLocation },
    live: context.live,
  };
}
