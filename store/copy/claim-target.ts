import type { PgDatabase } from '../postgres/pg-database.js';
import { refused } from './plan-table.js';

/** Any fixed number (beside the migrations' 7_740_017): two copies into one database never run at once. */
const COPY_LOCK = 7_740_019;

/** What the copy found in the PostgreSQL database: a new copy, or an interrupted one of the same source to resume. */
export interface CopyClaim {
  resumed: boolean;
  startedAt: number;
}

/** The source as the marker row names it. */
export interface ClaimSource {
  path: string;
  fingerprint: string;
}

interface MarkerRow {
  source: string;
  source_path: string;
  started_at: number;
  finished_at: number | null;
}

/**
 * The rule for copying into a database that is not empty (docs/scale-out.md): the copy leaves a marker row
 * (tokentap_copy: the source's fingerprint, its path, when it started, when its verification passed) beside the
 * store's tables, and its progress per table (tokentap_copy_progress). A database with no store rows is claimed for a
 * new copy; one holding rows is taken only to resume the unfinished copy of the same source (same fingerprint: the
 * first session's id and creation time), and refused otherwise: another store's rows, rows no copy wrote, or a copy
 * that already finished (gateways may have written since, so copying more would mix ids). A session advisory lock
 * keeps two copies from writing one database at once.
 *
 * @example const { resumed } = claimTarget(pg, { path: 'tokentap.db', fingerprint }, ['groups', 'sessions'], 'postgres://tt:***@db/tokentap');
 */
export function claimTarget(database: PgDatabase, source: ClaimSource, tables: readonly string[], label: string): CopyClaim {
  database.exec(
    `CREATE TABLE IF NOT EXISTS tokentap_copy (source TEXT NOT NULL, source_path TEXT NOT NULL, started_at DOUBLE PRECISION NOT NULL,
       finished_at DOUBLE PRECISION, digest TEXT);
     CREATE TABLE IF NOT EXISTS tokentap_copy_progress (table_name TEXT PRIMARY KEY, last_key TEXT NOT NULL, rows BIGINT NOT NULL)`,
  );
  const locked = database.prepare<[], { locked: boolean }>(`SELECT pg_try_advisory_lock(${COPY_LOCK}) AS locked`).get()?.locked === true;
  if (!locked) throw refused(`another tokentap migrate is copying into ${label}; wait for it to end`);
  const claim = database.transaction((): CopyClaim => {
    const marker = database.prepare<[], MarkerRow>(`SELECT source, source_path, started_at, finished_at FROM tokentap_copy LIMIT 1`).get();
    const holdsRows = database
      .prepare<[], { present: boolean }>(`SELECT ${tables.map((table) => `EXISTS (SELECT 1 FROM "${table}")`).join(' OR ')} AS present`)
      .get()?.present;
    if (marker !== undefined && marker.source === source.fingerprint && (holdsRows === true || marker.finished_at !== null)) {
      if (marker.finished_at !== null) {
        throw refused(
          `${label} already holds a finished, verified copy of ${marker.source_path} (${new Date(marker.finished_at).toISOString()}); ` +
            'to copy again, copy into an empty database',
        );
      }
      return { resumed: true, startedAt: marker.started_at };
    }
    if (holdsRows === true) {
      const what = marker === undefined ? 'a tokentap store this copy did not write' : `an unfinished copy of another store (${marker.source_path})`;
      throw refused(`${label} already holds ${what}: copy into an empty database`);
    }
    const startedAt = Date.now();
    database.exec(`DELETE FROM tokentap_copy; DELETE FROM tokentap_copy_progress`);
    database
      .prepare<[string, string, number]>(`INSERT INTO tokentap_copy (source, source_path, started_at) VALUES (?, ?, ?)`)
      .run(source.fingerprint, source.path, startedAt);
    return { resumed: false, startedAt };
  });
  return claim();
}

/** Marks the copy finished once its verification passed: a later run refuses to copy into it again. */
export function markCopyFinished(database: PgDatabase, digest: string): void {
  database.prepare<[number, string]>(`UPDATE tokentap_copy SET finished_at = ?, digest = ?`).run(Date.now(), digest);
}
