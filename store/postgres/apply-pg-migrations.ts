import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { Migration } from '../migrations/migration.js';
import { PG_MIGRATIONS } from './migrations/pg-migrations.js';
import type { PgDatabase } from './pg-database.js';

/** Any fixed number: every gateway migrating one database takes this advisory lock, so only one migrates at a time. */
export const PG_MIGRATION_LOCK = 7_740_017;

/**
 * Brings a PostgreSQL database up to the latest schema: pending steps run in order in one transaction under an
 * advisory lock (gateways starting together on a fresh database wait for the first), and `tokentap_schema` records
 * the version reached. Returns how many steps ran.
 */
export function applyPgMigrations(database: PgDatabase, migrations: readonly Migration[] = PG_MIGRATIONS): number {
  const latest = latestVersion(migrations);
  const migrate = database.transaction(() => {
    database.exec(`SELECT pg_advisory_xact_lock(${PG_MIGRATION_LOCK}); CREATE TABLE IF NOT EXISTS tokentap_schema (version BIGINT NOT NULL)`);
    const current = readPgSchemaVersion(database);
    if (current > latest) throw schemaTooNew(current, latest);
    const pending = migrations.filter((migration) => migration.version > current);
    for (const migration of pending) database.exec(migration.sql);
    if (pending.length > 0) database.exec(`DELETE FROM tokentap_schema; INSERT INTO tokentap_schema (version) VALUES (${latest})`);
    return pending.length;
  });
  return migrate();
}

/** Checks, changing nothing, that the database holds exactly the latest schema (a read-only open). */
export function assertPgSchemaCurrent(database: PgDatabase, migrations: readonly Migration[] = PG_MIGRATIONS): void {
  const current = installedPgSchemaVersion(database);
  const latest = latestVersion(migrations);
  if (current === 0) {
    throw new TokentapError('STORE_NOT_INITIALIZED', { message: 'the PostgreSQL database holds no tokentap store; open it read-write once' });
  }
  if (current > latest) throw schemaTooNew(current, latest);
  if (current < latest) {
    throw new TokentapError('STORE_SCHEMA_OUTDATED', {
      message: `the database has schema version ${current}, this tokentap needs ${latest}; open it read-write once to migrate`,
    });
  }
}

/** Whether the database holds the latest schema already (changing nothing): a writable open then has nothing to migrate. */
export function pgSchemaIsCurrent(database: PgDatabase, migrations: readonly Migration[] = PG_MIGRATIONS): boolean {
  return installedPgSchemaVersion(database) === latestVersion(migrations);
}

/** The schema version the database records; 0 when it holds no tokentap_schema table. */
function installedPgSchemaVersion(database: PgDatabase): number {
  const hasTable = database.prepare<[], { present: boolean }>(`SELECT to_regclass('tokentap_schema') IS NOT NULL AS present`).get();
  return hasTable?.present === true ? readPgSchemaVersion(database) : 0;
}

export function readPgSchemaVersion(database: PgDatabase): number {
  return database.prepare<[], { version: number }>(`SELECT max(version) AS version FROM tokentap_schema`).get()?.version ?? 0;
}

function latestVersion(migrations: readonly Migration[]): number {
  return migrations[migrations.length - 1]?.version ?? 0;
}

function schemaTooNew(current: number, latest: number): TokentapError {
  return new TokentapError('STORE_SCHEMA_TOO_NEW', {
    message: `the database has schema version ${current} but this tokentap knows only up to ${latest}; upgrade tokentap`,
  });
}
