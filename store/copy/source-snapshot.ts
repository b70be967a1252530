import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { configureConnection } from '../configure-connection.js';
import { readSchemaVersion } from '../migrations/apply-migrations.js';
import { LATEST_SCHEMA_VERSION } from '../migrations/migrations.js';
import { openStore } from '../open-store.js';
import type { GatewayInstanceRow } from '../types.js';
import { refused } from './plan-table.js';

/**
 * The SQLite store being copied, read in one read transaction: the copy sees one consistent snapshot (WAL lets the
 * snapshot stand while others write), and `writtenSince()` tells afterwards whether anyone committed meanwhile.
 */
export interface SourceSnapshot {
  database: Database.Database;
  /** the schema version the file had before this copy migrated it, when it did */
  migratedFrom: number | null;
  /** what names this store across runs: its first session, which later writes never change */
  fingerprint: string;
  /** ends the read transaction and closes the file; true when another connection committed while it was open */
  close(): boolean;
}

export interface OpenSourceOptions {
  path: string;
  /** whether the gateway of a gateway_instances row still runs (the CLI passes the gateway's own judge) */
  isGatewayLive: (row: GatewayInstanceRow) => boolean;
}

/**
 * Opens the SQLite file to copy: a store of an older schema is migrated first (as `tokentap migrate --db` would), a
 * newer one refused, and so is one a live gateway is writing: the copy reads a snapshot, but its verification reads
 * the file again, and a row written between the two would fail it.
 *
 * @example const source = openSourceSnapshot({ path: 'tokentap.db', isGatewayLive: (row) => isInstanceLive(row, Date.now()) });
 */
export function openSourceSnapshot(options: OpenSourceOptions): SourceSnapshot {
  const { path } = options;
  if (!existsSync(path)) throw new TokentapError('STORE_NOT_INITIALIZED', { message: `no SQLite store at ${path}` });
  let database = openReadOnly(path);
  const version = schemaVersion(database, path);
  let migratedFrom: number | null = null;
  if (version < LATEST_SCHEMA_VERSION) {
    // gateway_instances came with schema 5: an older gateway registers nowhere
    if (version >= 5) assertNoLiveGateway(database, path, options.isGatewayLive);
    database.close();
    openStore({ path }).close();
    migratedFrom = version;
    database = openReadOnly(path);
  }
  try {
    database.prepare('BEGIN').run();
    // the snapshot starts at the transaction's first read; data_version then changes with any other connection's commit
    assertNoLiveGateway(database, path, options.isGatewayLive);
    const dataVersion = database.pragma('data_version', { simple: true }) as number;
    const first = database.prepare<[], { id: string; created_at: number }>(`SELECT id, created_at FROM sessions ORDER BY rowid LIMIT 1`).get();
    return {
      database,
      migratedFrom,
      fingerprint: first === undefined ? 'empty' : `first session ${first.id} created ${first.created_at}`,
      close() {
        database.prepare('COMMIT').run();
        const written = (database.pragma('data_version', { simple: true }) as number) !== dataVersion;
        database.close();
        return written;
      },
    };
  } catch (error) {
    database.close();
    throw error;
  }
}

function openReadOnly(path: string): Database.Database {
  try {
    const database = new Database(path, { readonly: true, fileMustExist: true });
    configureConnection(database, { readonly: true });
    return database;
  } catch (error) {
    throw new TokentapError('STORE_OPEN_FAILED', { message: `cannot open the SQLite store at ${path}: ${(error as Error).message}`, cause: error });
  }
}

function schemaVersion(database: Database.Database, path: string): number {
  let version: number;
  try {
    version = readSchemaVersion(database);
    database.prepare(`SELECT count(*) FROM sqlite_schema`).get();
  } catch (error) {
    database.close();
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB') {
      throw new TokentapError('STORE_NOT_A_DATABASE', { message: `${path} is not a tokentap database (not a SQLite file)`, cause: error });
    }
    throw error;
  }
  if (version === 0) {
    database.close();
    throw new TokentapError('STORE_NOT_INITIALIZED', { message: `${path} holds no tokentap store (schema version 0)` });
  }
  if (version > LATEST_SCHEMA_VERSION) {
    database.close();
    throw new TokentapError('STORE_SCHEMA_TOO_NEW', {
      message: `${path} has schema version ${version} but this tokentap knows only up to ${LATEST_SCHEMA_VERSION}; upgrade tokentap`,
    });
  }
  return version;
}

function assertNoLiveGateway(database: Database.Database, path: string, isGatewayLive: OpenSourceOptions['isGatewayLive']): void {
  const rows = database
    .prepare<[], { id: string; host: string; pid: number; process_scope: string; process_start: string | null; started_at: number; seen_at: number }>(
      `SELECT * FROM gateway_instances ORDER BY seen_at DESC`,
    )
    .all();
  for (const row of rows) {
    const instance: GatewayInstanceRow = {
      id: row.id,
      host: row.host,
      pid: row.pid,
      processScope: row.process_scope,
      processStart: row.process_start,
      startedAt: row.started_at,
      seenAt: row.seen_at,
    };
    if (!isGatewayLive(instance)) continue;
    throw refused(
      `a gateway is running on ${path} (host ${row.host}, pid ${row.pid}, seen ${new Date(row.seen_at).toISOString()}): stop it first, ` +
        'so that the copy and its verification read the same store',
    );
  }
}
