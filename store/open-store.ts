import { existsSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { configureConnection, DEFAULT_BUSY_TIMEOUT_MS } from './configure-connection.js';
import { applyMigrations, assertSchemaCurrent } from './migrations/apply-migrations.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import type { OpenStoreOptions, Store } from './types.js';
import { createStore } from './create-store.js';
import { isPostgresUrl, openPostgresStore } from './postgres/open-postgres-store.js';

export { DEFAULT_LIST_LIMIT } from './create-store.js';

/**
 * Opens the tokentap database: the only code that touches a driver. A `postgres://` URL opens PostgreSQL
 * (postgres/open-postgres-store.ts); any other path a SQLite file. A writable open creates the
 * file and applies pending migrations; a read-only one migrates nothing and fails unless the file
 * holds the current schema. Connection settings (WAL, synchronous=NORMAL, ...) are in
 * configure-connection.ts. `listSessions` returns DEFAULT_LIST_LIMIT sessions unless told otherwise.
 *
 * @example
 * const store = openStore({ path: 'tokentap.db' });
 * store.recoverOrphanedCalls(() => false); // no gateway registered: every call left in progress is incomplete
 * const { callId } = store.beginCall(input);
 * store.finishCall(callId, result);
 * store.close();
 */
export function openStore(options: OpenStoreOptions): Store {
  if (isPostgresUrl(options.path)) return openPostgresStore(options);
  const readonly = options.readonly === true;
  const database = openDatabase(options.path, readonly);
  try {
    configureConnection(database, { readonly });
    if (readonly) assertSchemaCurrent(database);
    else applyMigrations(database);
    if (options.maxBytes !== undefined) limitDatabaseSize(database, options.maxBytes);
    return createStore({
      database,
      label: options.path,
      readonly,
      bytesOnDisk: () => bytesOnDisk(database, options.path),
      integrityCheck: () => (database.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check).join('\n'),
      close: () => database.close(),
    });
  } catch (error) {
    database.close();
    // SQLite opens any file lazily and finds out at the first statement that it is no database (a README, a JSONL)
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB') {
      throw new TokentapError('STORE_NOT_A_DATABASE', { message: `${options.path} is not a tokentap database (not a SQLite file)`, cause: error });
    }
    throw error;
  }
}

function openDatabase(path: string, readonly: boolean): Database.Database {
  if (readonly && (isInMemory(path) || !existsSync(path))) {
    throw new TokentapError('STORE_NOT_INITIALIZED', { message: `no database at ${path} to open read-only` });
  }
  if (!isInMemory(path)) assertDatabasePath(path);
  try {
    return new Database(path, { readonly, fileMustExist: readonly, timeout: DEFAULT_BUSY_TIMEOUT_MS });
  } catch (error) {
    throw new TokentapError('STORE_OPEN_FAILED', { message: `cannot open the database at ${path}: ${(error as Error).message}`, cause: error });
  }
}

/**
 * Caps the file this connection may grow (a quota on a shared disk): SQLite keeps the cap at the current page
 * count when asked for less, so a database already larger stops growing where it is.
 */
function limitDatabaseSize(database: Database.Database, maxBytes: number): void {
  const pageSize = database.pragma('page_size', { simple: true }) as number;
  database.pragma(`max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
}

/** Main file plus WAL (the WAL holds every commit since the last checkpoint). */
function bytesOnDisk(database: Database.Database, path: string): number {
  if (isInMemory(path)) {
    return (database.pragma('page_count', { simple: true }) as number) * (database.pragma('page_size', { simple: true }) as number);
  }
  return [path, `${path}-wal`].reduce((total, file) => total + (existsSync(file) ? statSync(file).size : 0), 0);
}

/**
 * True for the SQLite paths that name no file (`:memory:`, `''`): no other connection, nor another thread, can open
 * that database.
 *
 * @example isInMemory(':memory:') // true; isInMemory('./tokentap.db') // false
 */
export function isInMemory(path: string): boolean {
  return path === ':memory:' || path === '';
}

/**
 * A folder, or a path whose folder is missing or a file, is named as such: SQLite would say "disk I/O error" or
 * "unable to open database file". The folder is never created: a mistyped path must not become a new, empty store.
 */
function assertDatabasePath(path: string): void {
  if (statOrNull(path)?.isDirectory() === true)
    throw new TokentapError('STORE_NOT_A_DATABASE', { message: `${path} is a folder, not a database file` });
  const folder = dirname(path);
  const folderStat = statOrNull(folder);
  if (folderStat === null) throw new TokentapError('STORE_NO_FOLDER', { message: `${path}: the folder ${folder} does not exist (create it first)` });
  if (!folderStat.isDirectory()) throw new TokentapError('STORE_NO_FOLDER', { message: `${path}: ${folder} is a file, not a folder` });
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
