/**
 * The test run's PostgreSQL server (test/helpers/postgres-global-setup.ts) and databases of its own per caller, so
 * test files running in parallel never see each other's rows. No mock anywhere: a real server from Debian's packages.
 *
 * A database costs a CREATE DATABASE (and a migration for one holding the store's schema), and dropping it as much:
 * about a second together on two busy cores. So `acquireMigratedDatabase` clones one from a template migrated once
 * per run, and a database handed back (dropTestDatabase) is emptied for the next test of the same file instead of
 * dropped: each test still starts from what a new one holds (no schema, or the latest schema and no rows). Their
 * commits do not wait for the disk (synchronous_commit off), which halves the time of a test writing many calls.
 *
 * @example
 * describe.skipIf(!postgresAvailable())('on PostgreSQL', () => { const url = acquireMigratedDatabase(); ... });
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openStore } from '../../store/index.js';
import { PgDatabase } from '../../store/postgres/pg-database.js';

/** The template every migrated test database is cloned from: one per run, built by whichever file asks first. */
const TEMPLATE_NAME = 'tt_template';
/** Any fixed number: test processes starting together build the template once, under this advisory lock. */
const TEMPLATE_LOCK = 7_740_018;

/** The server's admin URL, or null when PostgreSQL cannot be had here (the reason is in postgresUnavailable()). */
export function postgresUrl(): string | null {
  return inject('postgres')?.url ?? null;
}

export function postgresAvailable(): boolean {
  return postgresUrl() !== null;
}

/** Why PostgreSQL tests are skipped here; shown in the skipped suite's name. */
export function postgresUnavailable(): string {
  return inject('postgres')?.unavailable ?? 'the PostgreSQL test server was not started (vitest.config.ts globalSetup)';
}

/**
 * An empty database (no schema) on the test server: a new one, or one a test of this file handed back (its schema
 * dropped). Hand it back with dropTestDatabase.
 */
export function createTestDatabase(prefix = 'tt'): string {
  const free = freeDatabases.empty.pop();
  if (free !== undefined) return databaseUrl(free);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  admin().exec(`CREATE DATABASE ${name}`);
  return adopt(name, 'empty');
}

/** A database of the latest schema and no rows (cloned from the run's template, or one handed back by an earlier test). */
export function acquireMigratedDatabase(): string {
  const free = freeDatabases.migrated.pop();
  if (free !== undefined) return databaseUrl(free);
  ensureTemplate();
  const name = `tt_${randomBytes(6).toString('hex')}`;
  admin().exec(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_NAME}`);
  return adopt(name, 'migrated');
}

/**
 * Hands a database from createTestDatabase or acquireMigratedDatabase back (or drops one made otherwise): every other
 * connection to it is ended (a store a test left open, a killed child's), then an empty one loses its schema and a
 * migrated one its rows and identity counters, so the next test of the file finds what a new one holds. One whose
 * schema a test changed (migrated) or left more than its public schema (empty) is dropped instead.
 */
export function dropTestDatabase(url: string): void {
  if (!postgresAvailable()) return;
  const name = databaseName(url);
  const entry = pooled.get(name);
  try {
    if (entry === undefined) throw new Error(`${name} was not made here`);
    const { connection, kind, fingerprint } = entry;
    const pid = connection.prepare<[], { pid: number }>(`SELECT pg_backend_pid() AS pid`).get()?.pid ?? 0;
    admin().exec(`SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> ${pid}`);
    if (schemaFingerprint(connection, kind) !== fingerprint) throw new Error(`a test changed the schema of ${name}`);
    connection.exec(kind === 'migrated' ? EMPTY_EVERY_TABLE : DROP_THE_SCHEMA);
    freeDatabases[kind].push(name);
  } catch {
    entry?.connection.close();
    pooled.delete(name);
    admin().exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** The same as dropTestDatabase, named for acquireMigratedDatabase. */
export function releaseMigratedDatabase(url: string): void {
  dropTestDatabase(url);
}

type DatabaseKind = 'empty' | 'migrated';

/**
 * Takes a new database into this process's pool: its commits return before their WAL is flushed (as visible and
 * atomic, lost only if the server itself crashed: these tests kill clients; a test restarting PostgreSQL runs a
 * server of its own), and what its schema is before any test runs on it is noted, to tell a schema a test changed.
 */
function adopt(name: string, kind: DatabaseKind): string {
  admin().exec(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  const connection = new PgDatabase({ connectionString: databaseUrl(name), applicationName: 'tokentap-tests' });
  pooled.set(name, { connection, kind, fingerprint: schemaFingerprint(connection, kind) });
  return databaseUrl(name);
}

/** Every table but the schema version emptied, in any order (foreign-key triggers off), identities restarted. */
const EMPTY_EVERY_TABLE = `
SET session_replication_role = replica;
DO $$ DECLARE item record; BEGIN
  FOR item IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'tokentap_schema' LOOP
    EXECUTE format('DELETE FROM %I', item.tablename);
  END LOOP;
  FOR item IN SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema() LOOP
    EXECUTE format('ALTER SEQUENCE %I RESTART', item.sequencename);
  END LOOP;
END $$;
SET session_replication_role = DEFAULT;`;

/** Whatever a test created in an empty database, gone: it holds no schema again. */
const DROP_THE_SCHEMA = `DROP SCHEMA public CASCADE; CREATE SCHEMA public`;

/** A migrated database's columns, indexes and schema version as one digest; an empty one's schemas. */
function schemaFingerprint(connection: PgDatabase, kind: DatabaseKind): string {
  const source =
    kind === 'empty'
      ? `SELECT string_agg(nspname, ',' ORDER BY nspname) AS digest FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'`
      : `SELECT md5(
           (SELECT string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable, ',' ORDER BY table_name, column_name)
              FROM information_schema.columns WHERE table_schema = current_schema())
           || (SELECT string_agg(indexdef, ',' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema())
           || (SELECT string_agg(version::text, ',') FROM tokentap_schema)) AS digest`;
  return connection.prepare<[], { digest: string }>(source).get()?.digest ?? '';
}

let adminConnection: PgDatabase | null = null;
/** the databases this process made, each with a connection kept for handing it back and its schema's digest */
const pooled = new Map<string, { connection: PgDatabase; kind: DatabaseKind; fingerprint: string }>();
/** those handed back, free for the next test */
const freeDatabases: Record<DatabaseKind, string[]> = { empty: [], migrated: [] };

/** One connection to the server's `postgres` database per test process, kept open (its worker does not hold the process). */
function admin(): PgDatabase {
  const url = postgresUrl();
  if (url === null) throw new Error(`no PostgreSQL for the tests: ${postgresUnavailable()}`);
  adminConnection ??= new PgDatabase({ connectionString: url, applicationName: 'tokentap-tests' });
  return adminConnection;
}

/** Builds the run's template once (a store opened on a new database migrates it), under a lock the first file takes. */
function ensureTemplate(): void {
  const database = admin();
  const exists = database.prepare<[string], { found: number }>(`SELECT 1 AS found FROM pg_database WHERE datname = ?`);
  if (exists.get(TEMPLATE_NAME) !== undefined) return;
  database.exec(`SELECT pg_advisory_lock(${TEMPLATE_LOCK})`);
  try {
    if (exists.get(TEMPLATE_NAME) !== undefined) return;
    // built under another name and renamed once complete: a process killed mid-build leaves no half template
    const building = `tt_template_${randomBytes(4).toString('hex')}`;
    createWithLanguageCollation(database, building);
    openStore({ path: databaseUrl(building) }).close();
    database.exec(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE_NAME}`);
  } finally {
    database.exec(`SELECT pg_advisory_unlock(${TEMPLATE_LOCK})`);
  }
}

/**
 * A new database whose text sorts by a language's rules (ICU's en-US, as many servers' default locale does), so a
 * store that sorted ids by the database's collation instead of by bytes, as SQLite does, shows in the tests. The
 * test server's own default (initdb --locale=C.UTF-8) sorts by code point, which hides it. Plain where the server
 * has no ICU.
 */
function createWithLanguageCollation(database: PgDatabase, name: string): void {
  try {
    database.exec(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
  } catch {
    database.exec(`CREATE DATABASE ${name}`);
  }
}

function databaseUrl(name: string): string {
  const url = new URL(postgresUrl() ?? 'postgres://unavailable/');
  url.pathname = `/${name}`;
  return url.toString();
}

function databaseName(url: string): string {
  return new URL(url).pathname.slice(1);
}
