import { TokentapError } from '../../core/errors/tokentap-error.js';
import { createStore } from '../create-store.js';
import type { OpenStoreOptions, Store } from '../types.js';
import { applyPgMigrations, assertPgSchemaCurrent, pgSchemaIsCurrent } from './apply-pg-migrations.js';
import { DEFAULT_PG_QUERY_TIMEOUT_MS, PgDatabase, PgError } from './pg-database.js';
import { watchPostgresSessionEnds } from './session-end-watch.js';

/**
 * True for a `postgres://` or `postgresql://` URL: `openStore({ path })` opens PostgreSQL for it.
 *
 * @example isPostgresUrl('postgres://tt:pw@db.internal/tokentap') // true; isPostgresUrl('./tokentap.db') // false
 */
export function isPostgresUrl(path: string): boolean {
  return /^postgres(ql)?:\/\//i.test(path);
}

/**
 * The URL with its password replaced by `***`, for every message and log line.
 *
 * @example redactPostgresUrl('postgres://tt:secret@db/tokentap') // 'postgres://tt:***@db/tokentap'
 */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
}

/**
 * Opens a PostgreSQL store: one connection (held by a worker thread, pg-database.ts), the schema migrated to the
 * latest on a writable open (under an advisory lock, so gateways starting together migrate once) or checked on a
 * read-only one, whose connection PostgreSQL itself keeps from writing (`default_transaction_read_only`).
 *
 * @example const store = openPostgresStore({ path: 'postgres://tt:pw@db.internal/tokentap' });
 */
export function openPostgresStore(options: OpenStoreOptions): Store {
  const label = redactPostgresUrl(options.path);
  if (options.maxBytes !== undefined) {
    throw new TokentapError('STORE_OPEN_FAILED', { message: `a size cap (dbMaxBytes) applies to SQLite files only; ${label} is PostgreSQL` });
  }
  const readonly = options.readonly === true;
  // a short statement timeout (the gateway's) is no bound for migrating, nor for waiting on another gateway's migration
  // (the advisory lock): when there is something to migrate, that runs on a connection of its own with the default timeout
  const shortTimeout = options.queryTimeoutMs !== undefined && options.queryTimeoutMs < DEFAULT_PG_QUERY_TIMEOUT_MS;
  let database: PgDatabase | undefined;
  try {
    database = new PgDatabase({
      connectionString: options.path,
      readonly,
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
    });
    if (readonly) assertPgSchemaCurrent(database);
    else if (!shortTimeout) applyPgMigrations(database);
    else {
      if (!pgSchemaIsCurrent(database)) migrateOnConnectionOfItsOwn(options.path);
      assertPgSchemaCurrent(database);
    }
  } catch (error) {
    database?.close();
    if (error instanceof PgError) {
      // the URL is the user's: a server that is not there, a wrong password, a database never created
      const code = error.connectionLost || /^(28...|3D000)$/.test(error.code ?? '') ? 'STORE_DATABASE_UNREACHABLE' : 'STORE_OPEN_FAILED';
      throw new TokentapError(code, { message: `cannot open the PostgreSQL store at ${label}: ${error.message}`, cause: error });
    }
    throw error;
  }
  const opened = database;
  const relationBytes = opened.prepare<[], { bytes: number | null }>(
    `SELECT sum(pg_total_relation_size(c.oid)) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  return createStore({
    database: opened,
    label,
    readonly,
    // tables with their indexes and TOAST: what the store costs the server (the WAL is the server's, shared)
    bytesOnDisk: () => relationBytes.get()?.bytes ?? 0,
    // PostgreSQL checks its pages itself (checksums, amcheck are the operator's); the store checks it can read its schema
    integrityCheck: () => {
      assertPgSchemaCurrent(opened);
      return 'ok';
    },
    watchSessionEnds: (listener) => watchPostgresSessionEnds(options.path, listener),
    close: () => opened.close(),
  });
}

function migrateOnConnectionOfItsOwn(connectionString: string): void {
  const migrator = new PgDatabase({ connectionString });
  try {
    applyPgMigrations(migrator);
  } finally {
    migrator.close();
  }
}
