import { openStore } from '../store/index.js';

/** What a SIGKILL left in the database file, before the next gateway touches it. */
export interface KilledStoreState {
  /** rows left `in_progress`: calls the kill cut, to be marked `incomplete` by the next start */
  rowsInProgress: number;
  /** `PRAGMA integrity_check`: 'ok' for a sound file */
  integrity: string;
}

/**
 * Opens the file a kill left (read-write, as the next gateway will, so SQLite replays the WAL) and checks it.
 *
 * @example inspectKilledStore('kill-recovery.db') // { rowsInProgress: 7, integrity: 'ok' }
 */
export function inspectKilledStore(db: string): KilledStoreState {
  const store = openStore({ path: db });
  try {
    const rowsInProgress = store.listSessions({ limit: 1_000_000 }).reduce((sum, session) => sum + (session.statusCounts.in_progress ?? 0), 0);
    return { rowsInProgress, integrity: store.integrityCheck() };
  } finally {
    store.close();
  }
}

/**
 * The count in a gateway's start-up line "calls left in progress by a gateway that is gone are marked incomplete" (0
 * when it logged none).
 *
 * @example readMarkedIncomplete(gateway.lines) // 7
 */
export function readMarkedIncomplete(lines: readonly string[]): number {
  const line = lines.find((candidate) => candidate.includes('marked incomplete'));
  return line === undefined ? 0 : Number((JSON.parse(line) as { calls?: number }).calls ?? Number.NaN);
}
