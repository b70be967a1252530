import { createHash } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { COPY_TABLES } from '../../store/copy/copy-tables.js';
import { digestStore } from '../../store/copy/store-digest.js';
import { assertSameRowCounts, compareStores } from '../../store/copy/verify-copy.js';
import { copyStore, type CopyStoreOptions } from '../../store/copy-store.js';
import { applyMigrations } from '../../store/migrations/apply-migrations.js';
import { MIGRATIONS } from '../../store/migrations/migrations.js';
import { openStore, type Store } from '../../store/index.js';
import { PgDatabase } from '../../store/postgres/pg-database.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';
import { recordCall, sampleBeginInput, sampleFinishInput } from './store-fixtures.js';

const NO_GATEWAY = (): boolean => false;

/**
 * Beside the gateway-recorded rollouts: what the copy must carry over that they lack. Stop reasons of both kinds
 * (SQLite ANY, PostgreSQL jsonb), a call left in progress, an acknowledged group, a gone gateway's row, and a prompt
 * parent written after its child (it began later and finished first), so its row comes after the child's.
 */
function addEdgeRows(path: string): void {
  const store = openStore({ path });
  try {
    const child = store.beginCall(sampleBeginInput({ sessionId: 'late-parent' })).callId;
    // rows between the child's and its parent's: more than a page of the copy (pageRows 3) apart
    recordCall(store, { sessionId: 'stops' }, { stopReason: '</answer>' });
    recordCall(store, { sessionId: 'stops' }, { stopReason: 151643 });
    store.beginCall(sampleBeginInput({ sessionId: 'stops' }));
    const parent = store.beginCall(sampleBeginInput({ sessionId: 'late-parent' })).callId;
    store.finishCall(parent, sampleFinishInput({ promptTokenIds: [1, 2, 3], completionTokenIds: [4, 5], completionLogprobs: [-0.5, -0.25] }));
    store.finishCall(child, sampleFinishInput({ promptTokenIds: [1, 2, 3, 4, 5, 6, 7], completionTokenIds: [8], completionLogprobs: [-1] }));
    expect(store.getCall(child)?.promptTokenIds).toEqual(Int32Array.from([1, 2, 3, 4, 5, 6, 7]));
    store.ackGroups('batch-1', ['task-a'], 'trainer-0', 1_764_480_000_000);
    store.registerInstance({ id: 'gone', host: 'node-7', pid: 999_999, processScope: 'elsewhere', processStart: null, startedAt: 1, seenAt: 2 });
  } finally {
    store.close();
  }
}

/** What the verification's digest is: sha256 over every entry of the walk of a store. */
function digestOfStore(path: string): string {
  const store = openStore({ path, readonly: true });
  try {
    const hash = createHash('sha256');
    for (const entry of digestStore(store)) hash.update(entry.digest);
    return hash.digest('hex');
  } finally {
    store.close();
  }
}

/** Every row of a table, sessions' rowid read as PostgreSQL's position, in one canonical order. */
function sqliteRows(path: string, table: string, columns: string[]): unknown[][] {
  const database = new Database(path, { readonly: true });
  try {
    const list = columns.map((column) => (column === 'position' ? 'rowid AS position' : `"${column}"`)).join(', ');
    return sorted(database.prepare(`SELECT ${list} FROM "${table}"`).raw().all() as unknown[][]);
  } finally {
    database.close();
  }
}

function sqliteTables(path: string): string[] {
  const database = new Database(path, { readonly: true });
  try {
    return database.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
  } finally {
    database.close();
  }
}

/** Every row of a PostgreSQL table, in the same order, and its columns. */
function pgRows(url: string, table: string): { columns: string[]; rows: unknown[][] } {
  const database = new PgDatabase({ connectionString: url });
  try {
    const columns = database
      .prepare<[string], string>(`SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position`)
      .pluck()
      .all(table) as string[];
    return { columns, rows: sorted(database.prepare(`SELECT * FROM "${table}"`).raw().all() as unknown[][]) };
  } finally {
    database.close();
  }
}

function sorted(rows: unknown[][]): unknown[][] {
  const keyed = rows.map((row) => [JSON.stringify(row), row] as const);
  return keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

function failure(run: () => unknown): string {
  try {
    run();
    return 'no error';
  } catch (error) {
    return isTokentapError(error) ? `${error.code}: ${error.message}` : String(error);
  }
}

async function asyncFailure(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'no error';
  } catch (error) {
    return isTokentapError(error) ? `${error.code}: ${error.message}` : String(error);
  }
}

describe.skipIf(!postgresAvailable())(
  `tokentap migrate --from --to: copyStore${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`,
  () => {
    let fixture: ExportFixture;
    let sourceDigest: string;
    const databases: string[] = [];
    const database = (): string => {
      const url = createTestDatabase('copy');
      databases.push(url);
      return url;
    };
    const copy = (to: string, options: Partial<CopyStoreOptions> = {}) =>
      copyStore({ from: fixture.dbPath, to, isGatewayLive: NO_GATEWAY, pageRows: 3, ...options });

    beforeAll(async () => {
      fixture = await recordExportFixture();
      addEdgeRows(fixture.dbPath);
      sourceDigest = digestOfStore(fixture.dbPath);
    }, 60_000);
    afterAll(() => {
      for (const url of databases) dropTestDatabase(url);
      fixture?.remove();
    });

    let copied: string;
    it('copies a recorded store exactly: every row of every table (bytes, ids, stop reasons of both kinds), verified by the digest', async () => {
      copied = database();
      const report = await copy(copied);
      expect(report.verification?.digest).toBe(sourceDigest);
      expect(report).toMatchObject({ resumed: false, migratedFrom: null, verification: { sessions: 9, groups: 2 } });
      expect(report.rowsCopied).toBe(report.tables?.reduce((sum, table) => sum + table.rows, 0));
      // every table of the schema, in dependency order
      const schemaTables = sqliteTables(fixture.dbPath);
      expect(schemaTables).toHaveLength(report.tables?.length ?? 0);
      expect(report.tables?.map((table) => table.name)).toEqual(COPY_TABLES.map((table) => table.name).filter((name) => schemaTables.includes(name)));
      for (const table of report.tables ?? []) {
        const target = pgRows(copied, table.name);
        expect(target.rows, table.name).toEqual(sqliteRows(fixture.dbPath, table.name, target.columns));
        expect(target.rows.length, table.name).toBe(table.rows);
      }
      const store = openStore({ path: copied, readonly: true });
      try {
        expect(store.listCalls('stops').map((call) => [call.stopReason, call.status])).toEqual([
          ['</answer>', 'ok'],
          [151643, 'ok'],
          [null, 'in_progress'],
        ]);
      } finally {
        store.close();
      }
    });

    it('moves every identity sequence past the copied ids: the PostgreSQL store records on after the copy', () => {
      const store = openStore({ path: copied });
      try {
        const units = store.listExportUnits({ limit: 100 });
        const rewardIds = pgRows(copied, 'rewards').rows.map((row) => row[0] as number);
        const callId = recordCall(store, { sessionId: 'after-the-copy', requestBody: { fresh: 'body' } });
        expect(store.getCall(callId)?.completionTokenIds).toEqual(Int32Array.from(sampleFinishInput().completionTokenIds as number[]));
        expect(store.getCallBodies(callId)?.requestBody).toEqual({ fresh: 'body' });
        expect(store.addReward({ sessionId: 'after-the-copy', value: 1, source: 'library', createdAt: 3 }).id).toBe(Math.max(...rewardIds) + 1);
        const after = store.listExportUnits({ limit: 100, afterPosition: units[units.length - 1]?.position });
        expect(after.map((unit) => unit.sessionId)).toEqual(['after-the-copy']);
      } finally {
        store.close();
      }
    });

    it('an interrupted copy resumes after its last committed page, writes no row twice and ends at the same digest', async () => {
      const target = database();
      const interrupt = new AbortController();
      let pages = 0;
      const first = await copy(target, {
        signal: interrupt.signal,
        onProgress: (progress) => {
          if (progress.phase === 'copy' && progress.rowsDone > 0 && ++pages === 4) interrupt.abort();
        },
      });
      expect(first).toMatchObject({ resumed: false, verification: null, tables: null });
      expect(first.rowsCopied).toBeGreaterThan(0);
      const second = await copy(target);
      expect(second.resumed).toBe(true);
      const total = second.tables?.reduce((sum, table) => sum + table.rows, 0);
      expect(first.rowsCopied + second.rowsCopied).toBe(total);
      expect(second.verification?.digest).toBe(sourceDigest);
    });

    it('refuses (nothing copied) a finished copy, another store, a live gateway; a newer schema; an older one is migrated first', async () => {
      expect(await asyncFailure(() => copy(copied))).toMatch(/^STORE_COPY_REFUSED: .* already holds a finished, verified copy of /);
      const other = database();
      const otherStore = openStore({ path: other });
      recordCall(otherStore, { sessionId: 'theirs' });
      otherStore.close();
      expect(await asyncFailure(() => copy(other))).toMatch(/^STORE_COPY_REFUSED: .* already holds a tokentap store this copy did not write/);
      const empty = database();
      expect(await asyncFailure(() => copy(empty, { isGatewayLive: () => true }))).toMatch(
        /^STORE_COPY_REFUSED: a gateway is running on .* \(host node-7/,
      );

      const newer = `${fixture.dir}/newer.db`;
      copyFileSync(fixture.dbPath, newer);
      const newerDatabase = new Database(newer);
      newerDatabase.pragma('user_version = 99');
      newerDatabase.close();
      expect(await asyncFailure(() => copy(empty, { from: newer }))).toMatch(/^STORE_SCHEMA_TOO_NEW: /);

      const older = `${fixture.dir}/older.db`;
      const oldDatabase = new Database(older);
      applyMigrations(oldDatabase, MIGRATIONS.slice(0, 5));
      oldDatabase.prepare(`INSERT INTO sessions (id, created_at, activity_at, metadata) VALUES ('old', 1, 1, '{}')`).run();
      oldDatabase.close();
      const report = await copy(empty, { from: older });
      // the refusals claimed nothing: this is a new copy
      expect(report).toMatchObject({ resumed: false, migratedFrom: 5, verification: { sessions: 1, calls: 0 } });
    });

    it('the verification names the first call that differs, and a table whose row count differs', () => {
      // the store recorded a session and a reward after the copy (above)
      const sqlite = new Database(fixture.dbPath, { readonly: true });
      const pg = new PgDatabase({ connectionString: copied });
      try {
        expect(failure(() => assertSameRowCounts(sqlite, pg, ['groups', 'sessions']))).toBe(
          'STORE_COPY_MISMATCH: the copy does not match its source: the table sessions has 9 rows in the source and 10 in the copy',
        );
      } finally {
        sqlite.close();
        pg.close();
      }
      const tampered = new PgDatabase({ connectionString: copied });
      const [call] = pgRows(copied, 'calls').rows.filter((row) => row[1] === 'late-parent');
      tampered.prepare(`UPDATE calls SET completion_logprobs = ? WHERE id = ?`).run(Buffer.from(new Float32Array([-2]).buffer), call?.[0]);
      tampered.close();
      const source: Store = openStore({ path: fixture.dbPath, readonly: true });
      const target: Store = openStore({ path: copied, readonly: true });
      try {
        expect(failure(() => compareStores(source, target))).toContain(`the call ${String(call?.[0])} (session late-parent) differs in the copy`);
      } finally {
        source.close();
        target.close();
      }
    });
  },
);
