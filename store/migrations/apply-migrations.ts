import type Database from 'better-sqlite3';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { Migration } from './migration.js';
import { MIGRATIONS } from './migrations.js';

/**
 * Brings a writable database up to the latest schema: pending migrations run in order inside one
 * IMMEDIATE transaction (so two processes opening a fresh file cannot both migrate it), and
 * `PRAGMA user_version` records the result. Returns how many migrations ran (0 when up to date).
 */
export function applyMigrations(database: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  assertNumberedInOrder(migrations);
  const latest = migrations.length;
  const migrate = database.transaction(() => {
    const current = readSchemaVersion(database);
    if (current > latest) throw schemaTooNew(current, latest);
    const pending = migrations.filter((migration) => migration.version > current);
    for (const migration of pending) {
      database.exec(migration.sql);
      migration.rewrite?.(database);
      // PRAGMA takes no bound parameters; the version is an integer from our own table, not input.
      database.pragma(`user_version = ${migration.version}`);
    }
    return pending.length;
  });
  return migrate.immediate();
}

/**
 * Checks, without changing anything, that a read-only database holds exactly the latest schema.
 */
export function assertSchemaCurrent(database: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
  const current = readSchemaVersion(database);
  const latest = migrations.length;
  if (current === 0) {
    throw new TokentapError('STORE_NOT_INITIALIZED', { message: 'the database was never initialized (schema version 0); open it read-write once' });
  }
  if (current > latest) throw schemaTooNew(current, latest);
  if (current < latest) {
    throw new TokentapError('STORE_SCHEMA_OUTDATED', {
      message: `the database has schema version ${current}, this tokentap needs ${latest}; open it read-write once to migrate`,
    });
  }
}

/** The schema version recorded in the file (`PRAGMA user_version`, 0 for a new file). */
export function readSchemaVersion(database: Database.Database): number {
  return database.pragma('user_version', { simple: true }) as number;
}

function schemaTooNew(current: number, latest: number): TokentapError {
  return new TokentapError('STORE_SCHEMA_TOO_NEW', {
    message: `the database has schema version ${current} but this tokentap knows only up to ${latest}; upgrade tokentap`,
  });
}

function assertNumberedInOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration ${migration.name} has version ${migration.version}, expected ${index + 1}`);
    }
  });
}
