/**
 * The test run's PostgreSQL server (test/helpers/postgres-global-setup.ts) and databases of its own per caller, so
 * test files running in parallel never see each other's rows. No mock anywhere: a real server from Debian's packages.
 *
 * A database holding the store's schema costs a CREATE DATABASE and a migration (about half a second on two cores),
 * so `acquireMigratedDatabase` clones one from a template migrated once per run, and `releaseMigratedDatabase`
 * empties it (every row, every identity counter) for the next test of the same file instead of dropping it: each
 * test still starts from a database of the latest schema and no rows, as a fresh one would be. Their commits do not
 * wait for the disk (synchronous_commit off), which halves the time of a test writing many calls.
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

/** Creates an empty database (no schema) on the test server and returns its URL; drop it with dropTestDatabase. */
export function createTestDatabase(prefix = 'tt'): string {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  admin().exec(`CREATE DATABASE ${name}`);
  return databaseUrl(name);
}

/** Drops a database made by createTestDatabase or acquireMigratedDatabase (its connections closed first). */
export function dropTestDatabase(url: string): void {
  if (!postgresAvailable()) return;
  const name = databaseName(url);
  pooled.get(name)?.connection.close();
  pooled.delete(name);
  admin().exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A database of the latest schema and no rows (cloned from the run's template, or one released by an earlier test). */
export function acquireMigratedDatabase(): string {
  const free = freeDatabases.pop();
  if (free !== undefined) return databaseUrl(free);
  ensureTemplate();
  const name = `tt_${randomBytes(6).toString('hex')}`;
  admin().exec(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_NAME}`);
  // a commit returns before its WAL is flushed (as visible and atomic, lost only if the server itself crashed): the
  // store's tests kill clients, never this server; tests that restart PostgreSQL make databases of their own
  admin().exec(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  // what the schema is before any test runs on it, for the release to tell a schema a test changed
  const connection = new PgDatabase({ connectionString: databaseUrl(name), applicationName: 'tokentap-tests' });
  pooled.set(name, { connection, fingerprint: schemaFingerprint(connection) });
  return databaseUrl(name);
}

/**
 * Hands a database from acquireMigratedDatabase back: every other connection to it is ended (a store a test left
 * open, a killed child's), every table emptied and every identity restarted, so the next test finds what a fresh
 * clone holds. One whose schema a test changed is dropped instead.
 */
export function releaseMigratedDatabase(url: string): void {
  if (!postgresAvailable()) return;
  const name = databaseName(url);
  const entry = pooled.get(name);
  try {
    if (entry === undefined) throw new Error(`${name} was not made by acquireMigratedDatabase`);
    const { connection, fingerprint } = entry;
    const pid = connection.prepare<[], { pid: number }>(`SELECT pg_backend_pid() AS pid`).get()?.pid ?? 0;
    admin().exec(`SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> ${pid}`);
    if (schemaFingerprint(connection) !== fingerprint) throw new Error(`a test changed the schema of ${name}`);
    connection.exec(EMPTY_EVERY_TABLE);
    freeDatabases.push(name);
  } catch {
    dropTestDatabase(url);
  }
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

/** The columns, indexes and schema version of a database, as one digest. */
function schemaFingerprint(connection: PgDatabase): string {
  const row = connection
    .prepare<[], { digest: string }>(
      `SELECT md5(
         (SELECT string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable, ',' ORDER BY table_name, column_name)
            FROM information_schema.columns WHERE table_schema = current_schema())
         || (SELECT string_agg(indexdef, ',' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema())
         || (SELECT string_agg(version::text, ',') FROM tokentap_schema)) AS digest`,
    )
    .get();
  return row?.digest ?? '';
}

let adminConnection: PgDatabase | null = null;
/** migrated databases this process cloned, each with a connection kept for emptying it and its schema's digest */
const pooled = new Map<string, { connection: PgDatabase; fingerprint: string }>();
/** those released, free for the next test */
const freeDatabases: string[] = [];

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
