import { existsSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createBodyStore } from './body-store.js';
import { createCallReader } from './call-reader.js';
import { createCallWriter, type CallWriter } from './call-writer.js';
import { configureConnection, DEFAULT_BUSY_TIMEOUT_MS } from './configure-connection.js';
import { applyMigrations, assertSchemaCurrent } from './migrations/apply-migrations.js';
import { createPromptDelta } from './prompt-delta.js';
import { SequenceCache } from './sequence-cache.js';
import { createSessionQueries } from './session-queries.js';
import { createGroupQueries } from './group-queries.js';
import { createRolloutQueries } from './rollout-queries.js';
import { createRewardQueries } from './reward-queries.js';
import { createBatchQueries } from './batch-queries.js';
import { createExportQueries } from './export-queries.js';
import { createInstanceQueries } from './instance-queries.js';
import { createTokenFaithfulQueries } from './token-faithful-queries.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import type { OpenStoreOptions, Store, StoreStats } from './types.js';

/** Sessions per `listSessions` page when no limit is given. */
export const DEFAULT_LIST_LIMIT = 50;

/**
 * Opens the tokentap database: the only code that touches the driver. A writable open creates the
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
  const readonly = options.readonly === true;
  const database = openDatabase(options.path, readonly);
  try {
    configureConnection(database, { readonly });
    if (readonly) assertSchemaCurrent(database);
    else applyMigrations(database);
    if (options.maxBytes !== undefined) limitDatabaseSize(database, options.maxBytes);
    return createStore(database, options.path, readonly);
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

function createStore(database: Database.Database, path: string, readonly: boolean): Store {
  const cache = new SequenceCache();
  const sessions = createSessionQueries(database);
  const bodies = createBodyStore(database);
  const delta = createPromptDelta({ database, cache });
  const reader = createCallReader({ database, bodies, delta });
  const writer = createCallWriter({ database, sessions, bodies, delta });
  const groups = createGroupQueries(database);
  const rollouts = createRolloutQueries(database, groups);
  const rewards = createRewardQueries(database);
  const batches = createBatchQueries(database);
  const exportQueries = createExportQueries(database);
  const instances = createInstanceQueries(database);
  const tokenFaithful = createTokenFaithfulQueries(database);
  const countRows = database.prepare<[], { sessions: number; calls: number }>(
    `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM calls) AS calls`,
  );

  function writable(): CallWriter {
    if (readonly) throw new TokentapError('STORE_READONLY', { message: `the store at ${path} was opened read-only` });
    return writer;
  }

  function whenWritable<T>(work: () => T): T {
    writable();
    return work();
  }

  return {
    ensureSession(sessionId, metadata = {}) {
      writable();
      return sessions.ensure(sessionId, metadata, Date.now());
    },
    getSession: (sessionId) => sessions.get(sessionId),
    listSessions: ({ limit, offset, ...filter } = {}) => sessions.list(filter, limit ?? DEFAULT_LIST_LIMIT, offset ?? 0),
    countSessions: (filter = {}) => sessions.count(filter),
    beginCall: (input) => writable().beginCall(input),
    finishCall: (callId, result) => writable().finishCall(callId, result),
    markCallsIncomplete: (callIds) => writable().markIncomplete(callIds),
    batch(work) {
      writable();
      const transaction = database.transaction(work);
      try {
        return transaction.immediate();
      } catch (error) {
        // finishCall caches a call's tokens as a future prompt parent once its savepoint is released; if the
        // whole batch then fails to commit, those entries name calls that do not exist: forget them all
        cache.clear();
        throw error;
      }
    },
    getCall: (callId) => reader.getCall(callId),
    getCallBodies: (callId, options) => reader.getCallBodies(callId, options),
    listCalls: (sessionId) => reader.listCalls(sessionId),
    listTokenFaithfulCallIds: (sessionId, limit) => tokenFaithful.listCallIds(sessionId, limit),
    registerInstance: (row) => whenWritable(() => instances.register(row)),
    touchInstance: (id, at) => whenWritable(() => instances.touch(id, at)),
    removeInstance: (id) => whenWritable(() => instances.remove(id)),
    recoverOrphanedCalls: (isLive) => whenWritable(() => instances.recoverOrphans(isLive)),
    createRollout: (input) => whenWritable(() => rollouts.create(input)),
    getRollout: (sessionId) => rollouts.get(sessionId),
    findSessionByKeyHash: (keyHash) => rollouts.findByKeyHash(keyHash),
    endSession: (sessionId, input) => whenWritable(() => rollouts.end(sessionId, input)),
    listIdleRollouts: (before) => rollouts.listIdle(before),
    addReward: (input) => whenWritable(() => rewards.add(input)),
    listRewards: (sessionId, options = {}) => rewards.list(sessionId, options.history === true),
    declareGroup: (input) => whenWritable(() => groups.declare(input)),
    getGroup: (groupId) => groups.get(groupId),
    setPolicyVersion: (version, setAt) => whenWritable(() => rewards.setPolicyVersion(version, setAt)),
    getPolicyVersion: () => rewards.getPolicyVersion(),
    listServableGroups: (query) => batches.listServableGroups(query),
    ackGroups: (batchId, groupIds, consumer, at) => whenWritable(() => batches.ackGroups(batchId, groupIds, consumer, at)),
    getBatchAck: (batchId) => batches.getBatchAck(batchId),
    listExportUnits: (query) => exportQueries.listUnits(query),
    countExportSessions: (filter) => exportQueries.countSessions(filter),
    listPolicyVersions: () => exportQueries.listPolicyVersions(),
    stats(): StoreStats {
      const counts = countRows.get() as { sessions: number; calls: number };
      return { ...counts, bytesOnDisk: bytesOnDisk(database, path) };
    },
    integrityCheck() {
      const rows = database.pragma('integrity_check') as Array<{ integrity_check: string }>;
      return rows.map((row) => row.integrity_check).join('\n');
    },
    close() {
      cache.clear();
      database.close();
    },
  };
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

function isInMemory(path: string): boolean {
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
