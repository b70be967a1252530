import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BUSY_TIMEOUT_MS, LATEST_SCHEMA_VERSION, isStoreError, openStore } from '../../store/index.js';
import { configureConnection } from '../../store/configure-connection.js';
import { applyMigrations, readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import { MIGRATIONS } from '../../store/migrations/migrations.js';
import { createTempWorkspace, recordCall, type TempWorkspace } from './store-fixtures.js';

let workspace: TempWorkspace;
beforeEach(() => {
  workspace = createTempWorkspace();
});
afterEach(() => workspace.cleanup());

/** Opens the file with the bare driver to look at what the store left on disk. */
function inspect<T>(path: string, look: (database: Database.Database) => T): T {
  const database = new Database(path);
  try {
    return look(database);
  } finally {
    database.close();
  }
}

describe('migrations', () => {
  it('a new database is migrated to the latest schema version in user_version', () => {
    workspace.open().close();
    expect(LATEST_SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(inspect(workspace.databasePath, readSchemaVersion)).toBe(LATEST_SCHEMA_VERSION);
  });

  it('the database file is left in WAL journal mode', () => {
    workspace.open().close();
    expect(inspect(workspace.databasePath, (database) => database.pragma('journal_mode', { simple: true }))).toBe('wal');
  });

  it('applying migrations twice runs them once and leaves the schema unchanged', () => {
    inspect(workspace.databasePath, (database) => {
      expect(applyMigrations(database)).toBe(MIGRATIONS.length);
      const schema = database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
      expect(applyMigrations(database)).toBe(0);
      expect(database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(schema);
      expect(readSchemaVersion(database)).toBe(LATEST_SCHEMA_VERSION);
    });
  });

  it('reopening a migrated database keeps its data', () => {
    const first = workspace.open();
    const callId = recordCall(first);
    first.close();
    const second = workspace.open();
    expect(second.getCall(callId)?.status).toBe('ok');
  });

  it('a failing migration rolls back every step of the run, version included', () => {
    const broken = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: 'broken', sql: 'CREATE TABLE oops (' }];
    inspect(workspace.databasePath, (database) => {
      expect(() => applyMigrations(database, broken)).toThrow();
      expect(readSchemaVersion(database)).toBe(0);
      expect(database.prepare(`SELECT count(*) AS count FROM sqlite_master WHERE type = 'table'`).get()).toEqual({ count: 0 });
    });
  });

  it('opening a database with a newer schema version fails with STORE_SCHEMA_TOO_NEW', () => {
    inspect(workspace.databasePath, (database) => database.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`));
    let failure: unknown;
    try {
      openStore({ path: workspace.databasePath });
    } catch (error) {
      failure = error;
    }
    expect(isStoreError(failure, 'STORE_SCHEMA_TOO_NEW')).toBe(true);
    expect((failure as Error).message).toMatch(/newer|upgrade/);
    expect(inspect(workspace.databasePath, readSchemaVersion)).toBe(LATEST_SCHEMA_VERSION + 1);
  });
});

describe('connection settings', () => {
  it('a writable connection gets WAL, synchronous NORMAL, foreign keys and a busy timeout', () => {
    inspect(workspace.databasePath, (database) => {
      configureConnection(database, { readonly: false });
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(database.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(database.pragma('busy_timeout', { simple: true })).toBe(DEFAULT_BUSY_TIMEOUT_MS);
    });
  });

  it('foreign keys are enforced: a call cannot point at a session that does not exist', () => {
    inspect(workspace.databasePath, (database) => {
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
