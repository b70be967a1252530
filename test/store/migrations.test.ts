import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUSY_TIMEOUT_MS, LATEST_SCHEMA_VERSION, isStoreError, openStore } from '../../store/index.js';
import { configureConnection } from '../../store/configure-connection.js';
import { applyMigrations, readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import type { Migration } from '../../store/migrations/migration.js';
import { MIGRATIONS } from '../../store/migrations/migrations.js';
import { applyPgMigrations, PG_MIGRATION_LOCK } from '../../store/postgres/apply-pg-migrations.js';
import { PG_MIGRATIONS } from '../../store/postgres/migrations/pg-migrations.js';
import type { PgDatabase } from '../../store/postgres/pg-database.js';
import type { SqlDatabase } from '../../store/sql/sql-database.js';
import { outputLines, runStoreProcesses } from './run-store-processes.js';
import {
  engineSuiteName,
  engineUnavailable,
  recordCall,
  schemaVersionOf,
  STORE_ENGINES,
  type TempWorkspace,
  workspaceForEachTest,
} from './store-fixtures.js';

/** Runs the engine's own migration steps, plus `extra`, on a bare connection (what openStore does on a writable open). */
function applyEngineMigrations(workspace: TempWorkspace, extra: Migration[] = []): number {
  return workspace.inspect((database) =>
    workspace.engine === 'sqlite'
      ? applyMigrations(database as Database.Database, [...MIGRATIONS, ...extra])
      : applyPgMigrations(database as PgDatabase, [...PG_MIGRATIONS, ...extra]),
  );
}

/** Records a schema version in a database that holds no store, as a newer tokentap would have left it. */
function recordSchemaVersion(workspace: TempWorkspace, version: number): void {
  workspace.inspect((database: SqlDatabase) => {
    if (workspace.engine === 'sqlite') (database as Database.Database).pragma(`user_version = ${version}`);
    else database.exec(`CREATE TABLE tokentap_schema (version BIGINT NOT NULL); INSERT INTO tokentap_schema (version) VALUES (${version})`);
  });
}

/**
 * Runs `script` in a process of its own, `driverPackage` imported as `driver` and the database at `process.argv[1]`;
 * resolves once it prints its first line (it holds its lock then), with the promise of its exit code.
 */
async function startLockHolder(
  driverPackage: 'pg' | 'better-sqlite3',
  script: string,
  databasePath: string,
): Promise<{ exited: Promise<number | null> }> {
  const driverUrl = pathToFileURL(createRequire(import.meta.url).resolve(driverPackage)).href;
  const holder = spawn(process.execPath, ['--input-type=module', '-e', `import driver from ${JSON.stringify(driverUrl)};\n${script}`, databasePath], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => holder.on('close', resolve));
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  // wrapped: an async function's promise would take on the exit's and resolve only once the holder is gone
  return { exited };
}

function countTables(workspace: TempWorkspace): number {
  const source =
    workspace.engine === 'sqlite'
      ? `SELECT count(*) AS count FROM sqlite_master WHERE type = 'table'`
      : `SELECT count(*) AS count FROM pg_tables WHERE schemaname = current_schema()`;
  return workspace.inspect((database) => (database.prepare<[], { count: number }>(source).get() as { count: number }).count);
}

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: migrations`, () => {
    // a database without the store's schema: these tests are of the migration itself
    const workspace = workspaceForEachTest(engine, { schema: 'empty' });

    it('a new database is migrated to the latest schema version, the same number on both engines', () => {
      workspace.open().close();
      expect(LATEST_SCHEMA_VERSION).toBe(MIGRATIONS.length);
      expect(schemaVersionOf(workspace)).toBe(LATEST_SCHEMA_VERSION);
    });

    it('reopening a migrated database keeps its data', () => {
      const first = workspace.open();
      const callId = recordCall(first);
      first.close();
      const second = workspace.open();
      expect(second.getCall(callId)?.status).toBe('ok');
    });

    it('a failing migration rolls back every step of the run, version included', () => {
      const broken = { version: LATEST_SCHEMA_VERSION + 1, name: 'broken', sql: 'CREATE TABLE oops (' };
      expect(() => applyEngineMigrations(workspace, [broken])).toThrow();
      expect(schemaVersionOf(workspace)).toBe(0);
      expect(countTables(workspace)).toBe(0);
      expect(applyEngineMigrations(workspace)).toBe(engine === 'sqlite' ? MIGRATIONS.length : PG_MIGRATIONS.length);
      expect(applyEngineMigrations(workspace)).toBe(0);
    });

    it('opening a database with a newer schema version fails with STORE_SCHEMA_TOO_NEW and leaves it as it was', () => {
      recordSchemaVersion(workspace, LATEST_SCHEMA_VERSION + 1);
      let failure: unknown;
      try {
        openStore({ path: workspace.databasePath }).close();
      } catch (error) {
        failure = error;
      }
      expect(isStoreError(failure, 'STORE_SCHEMA_TOO_NEW')).toBe(true);
      expect((failure as Error).message).toMatch(/newer|upgrade/);
      expect(schemaVersionOf(workspace)).toBe(LATEST_SCHEMA_VERSION + 1);
    });

    it('gateways opening a new database at the same moment migrate it once, and each then records its calls', async () => {
      const gateways = ['gw-a', 'gw-b', 'gw-c'];
      const results = await runStoreProcesses(
        workspace.dir,
        `await ready();
const opened = store.openStore({ path: args[0] });
const { callId, seq } = opened.beginCall({ sessionId: args[1], frontDoor: 'openai-chat', path: '/v1/chat/completions',
  requestedModel: 'm', backendModel: 'm', stream: false, samplingParams: {}, metadata: {}, startedAt: 1,
  requestBody: {}, backendRequestBody: {}, policyVersion: null });
opened.close();
console.log(JSON.stringify({ callId, seq }));`,
        gateways.map((gateway) => [workspace.databasePath, gateway]),
      );
      // a second run of the schema would fail its CREATE TABLE: every process opening cleanly is one migration
      expect(results.map((result) => [result.code, result.stderr])).toEqual(gateways.map(() => [0, '']));
      expect(schemaVersionOf(workspace)).toBe(LATEST_SCHEMA_VERSION);
      const store = workspace.open();
      results.forEach((result, index) => {
        const [written] = outputLines<{ callId: string; seq: number }>(result);
        expect(store.getCall(written?.callId as string)).toMatchObject({ sessionId: gateways[index], seq: 1 });
      });
    });
  });
}

describe.skipIf(engineUnavailable('postgres'))(`${engineSuiteName('postgres')}: migrating under a gateway's statement timeout`, () => {
  const workspace = workspaceForEachTest('postgres', { schema: 'empty' });

  it("waits for another gateway's migration past its own short statement timeout, then migrates (on a connection of its own)", async () => {
    // another gateway migrating: it holds the migration lock for a second, five times the opener's statement timeout
    const { exited } = await startLockHolder(
      'pg',
      `const client = new driver.Client({ connectionString: process.argv[1] });
await client.connect();
await client.query('BEGIN');
await client.query('SELECT pg_advisory_xact_lock(${PG_MIGRATION_LOCK})');
console.log('locked');
await new Promise((resolve) => setTimeout(resolve, 1000));
await client.query('COMMIT');
await client.end();`,
      workspace.databasePath,
    );
    const startedAt = performance.now();
    const store = openStore({ path: workspace.databasePath, queryTimeoutMs: 200 }); // synchronous: waits for the lock
    expect(performance.now() - startedAt).toBeGreaterThan(500);
    recordCall(store);
    store.close();
    expect(await exited).toBe(0);
    expect(schemaVersionOf(workspace)).toBe(LATEST_SCHEMA_VERSION);
  });
});

// SQLite only: the journal mode, the pragmas of a connection and sqlite_master are SQLite's own (PostgreSQL's
// schema declares its foreign keys, which the server always enforces)
describe('sqlite: migrations and connection settings', () => {
  const workspace = workspaceForEachTest('sqlite');

  /** Opens the file with the bare driver to look at what the store left on disk. */
  function inspect<T>(look: (database: Database.Database) => T): T {
    return workspace.inspect((database) => look(database as Database.Database));
  }

  it('the version is kept in user_version, and the database file is left in WAL journal mode', () => {
    workspace.open().close();
    expect(inspect(readSchemaVersion)).toBe(LATEST_SCHEMA_VERSION);
    expect(inspect((database) => database.pragma('journal_mode', { simple: true }))).toBe('wal');
  });

  it('applying migrations twice runs them once and leaves the schema unchanged', () => {
    inspect((database) => {
      expect(applyMigrations(database)).toBe(MIGRATIONS.length);
      const schema = database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
      expect(applyMigrations(database)).toBe(0);
      expect(database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(schema);
      expect(readSchemaVersion(database)).toBe(LATEST_SCHEMA_VERSION);
    });
  });

  it('opening a file while another process holds its write lock waits for the lock instead of failing at the switch to WAL', async () => {
    // the switch to WAL upgrades a shared lock, where SQLite answers SQLITE_BUSY at once without its busy handler
    const { exited } = await startLockHolder(
      'better-sqlite3',
      `const database = new driver(process.argv[1]);
database.exec('CREATE TABLE held (x INTEGER)');
database.exec('BEGIN IMMEDIATE');
database.exec('INSERT INTO held VALUES (1)');
console.log('locked');
setTimeout(() => { database.exec('COMMIT'); database.close(); }, 300);`,
      workspace.databasePath,
    );
    const store = workspace.open(); // synchronous: returns once the holder has committed and let go
    recordCall(store);
    store.close();
    expect(await exited).toBe(0);
    expect(inspect((database) => database.pragma('journal_mode', { simple: true }))).toBe('wal');
    expect(inspect((database) => database.prepare('SELECT count(*) AS n FROM held').get())).toEqual({ n: 1 });
    expect(inspect(readSchemaVersion)).toBe(LATEST_SCHEMA_VERSION);
  });

  it('a writable connection gets WAL, synchronous NORMAL, foreign keys and a busy timeout', () => {
    inspect((database) => {
      configureConnection(database, { readonly: false });
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(database.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(database.pragma('busy_timeout', { simple: true })).toBe(DEFAULT_BUSY_TIMEOUT_MS);
    });
  });

  it('foreign keys are enforced: a call cannot point at a session that does not exist', () => {
    inspect((database) => {
      configureConnection(database, { readonly: false });
      applyMigrations(database);
      const insert = database.prepare(
        `INSERT INTO calls (id, session_id, seq, status, front_door, path, stream, sampling_params, metadata, started_at)
         VALUES ('c', 'no-such-session', 1, 'in_progress', 'openai-chat', '/', 0, '{}', '{}', 0)`,
      );
      expect(() => insert.run()).toThrow(/FOREIGN KEY/);
    });
  });
});
