import { afterEach, beforeEach } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStoreError, openStore } from '../../store/index.js';
import { readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import { readPgSchemaVersion } from '../../store/postgres/apply-pg-migrations.js';
import { PgDatabase } from '../../store/postgres/pg-database.js';
import type { SqlDatabase } from '../../store/sql/sql-database.js';
import { acquireMigratedDatabase, createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';
import type { BeginCallInput, FinishCallInput, OpenStoreOptions, Store, StoreErrorCode } from '../../store/index.js';

/**
 * The engines every store test runs on (one parameterised suite, `describe.each(STORE_ENGINES)`); PostgreSQL's runs
 * on the test run's server (test/helpers/test-postgres.ts) and is skipped, naming why, only where none can be had.
 */
export type StoreEngineName = 'sqlite' | 'postgres';
export const STORE_ENGINES: readonly StoreEngineName[] = ['sqlite', 'postgres'];

/** For `describe.skipIf`: true when the engine cannot run here (PostgreSQL not installable). */
export function engineUnavailable(engine: StoreEngineName): boolean {
  return engine === 'postgres' && !postgresAvailable();
}

/** A suite name saying the engine, and why it is skipped when it is. */
export function engineSuiteName(engine: StoreEngineName): string {
  return engine === 'postgres' && !postgresAvailable() ? `postgres (skipped: ${postgresUnavailable()})` : engine;
}

/** A temp directory (and, on PostgreSQL, a fresh database) for one test; `cleanup` closes and removes both. */
export interface TempWorkspace {
  engine: StoreEngineName;
  dir: string;
  /** what `openStore({ path })` takes: the test's database file, or its PostgreSQL URL */
  databasePath: string;
  open(options?: Partial<OpenStoreOptions>): Store;
  /**
   * Runs `look` on a connection of the engine's own driver beside the store (better-sqlite3, or the PostgreSQL
   * connection the store uses), for what the contract does not show: rows per table, stored links. The SQL must
   * read the same on both engines.
   */
  inspect<T>(look: (database: SqlDatabase) => T): T;
  cleanup(): void;
}

export interface TempWorkspaceOptions {
  /**
   * What the database holds before the test: `migrated` (the latest schema, no rows: what a first writable open
   * leaves; on PostgreSQL a cheap clone), or `empty` (no file / a database without the schema), for tests of the
   * migration itself. Default `migrated` on PostgreSQL; SQLite's workspace always starts with no file.
   */
  schema?: 'migrated' | 'empty';
}

export function createTempWorkspace(engine: StoreEngineName = 'sqlite', options: TempWorkspaceOptions = {}): TempWorkspace {
  const dir = mkdtempSync(join(tmpdir(), 'tokentap-store-'));
  const migrated = options.schema !== 'empty';
  const databasePath = engine === 'sqlite' ? join(dir, 'tokentap.db') : migrated ? acquireMigratedDatabase() : createTestDatabase();
  const opened: Store[] = [];
  return {
    engine,
    dir,
    databasePath,
    open(options = {}) {
      const store = openStore({ path: databasePath, ...options });
      opened.push(store);
      return store;
    },
    inspect(look) {
      const database: SqlDatabase = engine === 'sqlite' ? new Database(databasePath) : new PgDatabase({ connectionString: databasePath });
      try {
        return look(database);
      } finally {
        database.close();
      }
    },
    cleanup() {
      for (const store of opened) store.close();
      rmSync(dir, { recursive: true, force: true });
      if (engine === 'postgres') dropTestDatabase(databasePath);
    },
  };
}

/**
 * A workspace of `engine` made afresh before each test of the calling suite and cleaned up after it (the suite's
 * beforeEach and afterEach), as one object: its fields and methods always reach the current test's.
 *
 * @example describe('...', () => { const workspace = workspaceForEachTest(engine); it('...', () => workspace.open()); });
 */
export function workspaceForEachTest(engine: StoreEngineName, options: TempWorkspaceOptions = {}): TempWorkspace {
  let current: TempWorkspace | undefined;
  beforeEach(() => {
    current = createTempWorkspace(engine, options);
  });
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  const now = (): TempWorkspace => {
    if (current === undefined) throw new Error('a workspaceForEachTest workspace exists only while a test runs');
    return current;
  };
  return {
    engine,
    get dir() {
      return now().dir;
    },
    get databasePath() {
      return now().databasePath;
    },
    open: (openOptions) => now().open(openOptions),
    inspect: (look) => now().inspect(look),
    cleanup: () => now().cleanup(),
  };
}

/** The schema version the workspace's database records (0: never migrated): SQLite's user_version, PostgreSQL's tokentap_schema. */
export function schemaVersionOf(workspace: TempWorkspace): number {
  return workspace.inspect((database) => {
    if (workspace.engine === 'sqlite') return readSchemaVersion(database as Database.Database);
    const table = database.prepare<[], { present: boolean }>(`SELECT to_regclass('tokentap_schema') IS NOT NULL AS present`).get();
    return table?.present === true ? readPgSchemaVersion(database as PgDatabase) : 0;
  });
}

export function sampleBeginInput(overrides: Partial<BeginCallInput> = {}): BeginCallInput {
  return {
    sessionId: 'session-a',
    frontDoor: 'openai-chat',
    path: '/v1/chat/completions',
    requestedModel: 'gpt-test',
    backendModel: 'Qwen/Qwen3-0.6B',
    stream: true,
    requestBody: { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }], stream: true },
    backendRequestBody: { model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'hello' }], stream: true },
    samplingParams: { temperature: 0.7, top_p: 0.9, max_tokens: 256, seed: 7 },
    metadata: { 'user-agent': 'claude-cli/1.0', harness: 'claude-code' },
    startedAt: 1_700_000_000_000,
    policyVersion: null,
    ...overrides,
  };
}

export function sampleFinishInput(overrides: Partial<FinishCallInput> = {}): FinishCallInput {
  return {
    status: 'ok',
    tokenSource: 'backend',
    promptTokenIds: [151644, 872, 198, 14990, 151645],
    completionTokenIds: [9707, 0, 151645],
    completionLogprobs: [-0.25, -1.5, -0.0078125],
    finishReason: 'stop',
    stopReason: null,
    responseBody: { id: 'chatcmpl-1', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!' } }] },
    responseStream: 'data: {"id":"chatcmpl-1"}\n\ndata: [DONE]\n\n',
    usage: { promptTokens: 5, completionTokens: 3 },
    error: null,
    httpStatus: 200,
    flags: [],
    timeToFirstTokenMs: 12.5,
    totalMs: 40.25,
    endedAt: 1_700_000_000_040,
    ...overrides,
  };
}

/** Writes one finished call and returns its id. */
export function recordCall(store: Store, begin: Partial<BeginCallInput> = {}, finish: Partial<FinishCallInput> = {}): string {
  const { callId } = store.beginCall(sampleBeginInput(begin));
  store.finishCall(callId, sampleFinishInput(finish));
  return callId;
}

/** The StoreError code `run` throws, or why there is none: for asserting one failure per line. */
export function storeErrorCode(run: () => unknown): StoreErrorCode | 'no error' | 'not a StoreError' {
  try {
    run();
    return 'no error';
  } catch (error) {
    return isStoreError(error) ? error.code : 'not a StoreError';
  }
}
