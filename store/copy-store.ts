import { setImmediate as nextTurn } from 'node:timers/promises';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { LATEST_SCHEMA_VERSION } from './migrations/migrations.js';
import { openStore } from './open-store.js';
import { readPgSchemaVersion } from './postgres/apply-pg-migrations.js';
import { isPostgresUrl, redactPostgresUrl } from './postgres/open-postgres-store.js';
import { PgDatabase } from './postgres/pg-database.js';
import type { GatewayInstanceRow, Store } from './types.js';
import { claimTarget, markCopyFinished } from './copy/claim-target.js';
import { decodeCopyKey, encodeCopyKey } from './copy/copy-tables.js';
import { assertNoNulTexts } from './copy/find-nul-text.js';
import { planTables, refused, type TablePlan } from './copy/plan-table.js';
import { createPageReader, type PageLimits } from './copy/read-pages.js';
import { openSourceSnapshot, type SourceSnapshot } from './copy/source-snapshot.js';
import { createTargetWriter, type TargetWriter } from './copy/target-writer.js';
import { assertSameRowCounts, compareStores, countRows, type CopyVerification } from './copy/verify-copy.js';

/** Rows per page (and per transaction): a few hundred rows make one round trip cheap beside what it carries. */
export const DEFAULT_COPY_PAGE_ROWS = 500;
/** Bytes per page, bodies and token arrays counted: what the copy holds in memory at once, however large the store. */
export const DEFAULT_COPY_PAGE_BYTES = 16 * 1024 * 1024;

export interface CopyStoreOptions {
  /** the SQLite store's file */
  from: string;
  /** the PostgreSQL store's URL (`postgres://…`); created and migrated here when new */
  to: string;
  /** whether a gateway registered in the source still runs: a live one makes the copy refuse (the CLI passes the gateway's own judge) */
  isGatewayLive: (row: GatewayInstanceRow) => boolean;
  pageRows?: number;
  pageBytes?: number;
  /** aborted: the copy stops after the page being written commits, and a later run resumes there */
  signal?: AbortSignal;
  onProgress?: (progress: CopyProgress) => void;
}

export type CopyProgress =
  { phase: 'copy'; table: string; rowsDone: number; rowsTotal: number } | { phase: 'verify'; sessionsDone: number; sessionsTotal: number };

export interface CopyReport {
  /** this run continued a copy an earlier run left unfinished */
  resumed: boolean;
  /** the schema version the source had before the copy migrated it, when it did */
  migratedFrom: number | null;
  /** source rows this run copied (a resumed run counts only its own) */
  rowsCopied: number;
  /** every table's rows, equal on both sides (null when interrupted) */
  tables: Array<{ name: string; rows: number }> | null;
  /** null when interrupted (`signal`) before the copy was complete */
  verification: CopyVerification | null;
}

/**
 * Copies a SQLite store into PostgreSQL exactly (docs/scale-out.md, "Moving a SQLite store to PostgreSQL"), then
 * verifies it: every table in dependency order, page by page, each page one transaction with its progress, so an
 * interrupted copy resumes after its last committed page and never writes a row twice; then a digest of every group,
 * session and call read through the Store contract on both sides, and every table's row count, must agree
 * (STORE_COPY_MISMATCH names the first difference). Refusals (STORE_COPY_REFUSED, nothing written): a database holding
 * anything but this copy's unfinished rows (copy/claim-target.ts), a live gateway on the source, differing schemas.
 * Between pages it yields to the event loop, so a caller's signal handler can stop it.
 *
 * @example
 * const report = await copyStore({ from: 'tokentap.db', to: 'postgres://tt:pw@db/tokentap', isGatewayLive: () => false });
 * console.log(report.verification?.digest);
 */
export async function copyStore(options: CopyStoreOptions): Promise<CopyReport> {
  if (!isPostgresUrl(options.to)) throw refused(`the copy goes into PostgreSQL: ${options.to} is no postgres:// URL`);
  const label = redactPostgresUrl(options.to);
  const source = openSourceSnapshot({ path: options.from, isGatewayLive: options.isGatewayLive });
  let target: PgDatabase | null = null;
  let closedSource = false;
  try {
    // a new database gets the store's schema as any PostgreSQL store does; an older one is migrated
    openStore({ path: options.to }).close();
    target = new PgDatabase({ connectionString: options.to, applicationName: 'tokentap-migrate' });
    const version = readPgSchemaVersion(target);
    if (version !== LATEST_SCHEMA_VERSION) throw refused(`${label} has schema version ${version}, the SQLite store ${LATEST_SCHEMA_VERSION}`);
    const plans = planTables(source.database, target);
    assertNoNulTexts(source.database, plans);
    const tables = plans.map((plan) => plan.table.name);
    const claim = claimTarget(target, { path: options.from, fingerprint: source.fingerprint }, tables, label);
    const { rowsCopied, interrupted } = await copyTables(source, createTargetWriter(target), plans, options);
    if (interrupted) return { resumed: claim.resumed, migratedFrom: source.migratedFrom, rowsCopied, tables: null, verification: null };
    const counts = assertSameRowCounts(source.database, target, tables);
    const verification = verify(options);
    closedSource = true;
    if (source.close()) {
      throw new TokentapError('STORE_COPY_MISMATCH', {
        message: `${options.from} was written while it was copied (a gateway started on it?): stop every gateway on it, then copy again into an empty database`,
      });
    }
    markCopyFinished(target, verification.digest);
    return { resumed: claim.resumed, migratedFrom: source.migratedFrom, rowsCopied, tables: counts, verification };
  } finally {
    if (!closedSource) source.close();
    target?.close();
  }
}

/** Copies every table from where an earlier run stopped: the rows this run copied, and whether the signal stopped it. */
async function copyTables(
  source: SourceSnapshot,
  writer: TargetWriter,
  plans: TablePlan[],
  options: CopyStoreOptions,
): Promise<{ rowsCopied: number; interrupted: boolean }> {
  const limits: PageLimits = { rows: options.pageRows ?? DEFAULT_COPY_PAGE_ROWS, bytes: options.pageBytes ?? DEFAULT_COPY_PAGE_BYTES };
  const progress = writer.readProgress();
  const rowsTotal = plans.reduce((sum, plan) => sum + countRows(source.database, plan.table.name), 0);
  let rowsDone = [...progress.values()].reduce((sum, table) => sum + table.rows, 0);
  let rowsCopied = 0;
  for (const plan of plans) {
    const read = createPageReader(source.database, plan, limits);
    const saved = progress.get(plan.table.name);
    let tableRows = saved?.rows ?? 0;
    options.onProgress?.({ phase: 'copy', table: plan.table.name, rowsDone, rowsTotal });
    for (let page = read(saved === undefined ? null : decodeCopyKey(plan.table, saved.lastKey)); page !== null; page = read(page.lastKey)) {
      tableRows += page.count;
      writer.writePage(plan, page, { lastKey: encodeCopyKey(plan.table, page.lastKey), rows: tableRows });
      rowsDone += page.count;
      rowsCopied += page.count;
      options.onProgress?.({ phase: 'copy', table: plan.table.name, rowsDone, rowsTotal });
      await nextTurn();
      if (options.signal?.aborted === true) return { rowsCopied, interrupted: true };
    }
    writer.moveSequences(plan);
  }
  return { rowsCopied, interrupted: false };
}

/** The digest walk on both sides, each through its own read-only store. */
function verify(options: CopyStoreOptions): CopyVerification {
  const stores: Store[] = [];
  try {
    const source = openStore({ path: options.from, readonly: true });
    stores.push(source);
    const target = openStore({ path: options.to, readonly: true });
    stores.push(target);
    const sessionsTotal = source.countSessions();
    options.onProgress?.({ phase: 'verify', sessionsDone: 0, sessionsTotal });
    return compareStores(source, target, (sessionsDone) => options.onProgress?.({ phase: 'verify', sessionsDone, sessionsTotal }));
  } finally {
    for (const store of stores) store.close();
  }
}
