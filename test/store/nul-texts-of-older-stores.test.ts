import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { copyStore } from '../../store/copy-store.js';
import { readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import { LATEST_SCHEMA_VERSION } from '../../store/migrations/migrations.js';
import { openStore, type Store } from '../../store/index.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';
import { recordCall, workspaceForEachTest } from './store-fixtures.js';

// A SQLite store written before U+0000 became U+FFFD in the store's own texts and tags (well-formed-text.ts) could
// hold U+0000 there; PostgreSQL's text cannot. Schema 9 rewrites them as a store writes them today, so such a store
// reads like a new one and `tokentap migrate --from --to` copies it; an id holding one is refused by the copy.

/** The texts schema 9 rewrites, written raw into a store as an older tokentap could, the file set back to schema 8. */
const RAW_CALL_TEXTS: Record<string, string> = {
  path: '/v1/chat\u0000',
  requested_model: 'gpt\u0000',
  backend_model: 'qwen\u0000',
  policy_version: 'step\u00001',
  backend_id: 'vllm\u0000',
  finish_reason: 'stop\u0000',
  stop_reason: '\u0000end',
  weight_version: 'w\u0000',
};
/** A tag holding U+0000, and one holding the six characters `\u0000` (JSON-escaped twice in the column): left as it is. */
const RAW_TAGS = ['t\u0000x', 'lit\\u0000'];

function writeOlderStore(path: string): void {
  const store = openStore({ path });
  try {
    store.createRollout({ sessionId: 'tagged', groupId: 'task-a', createdAt: 1, tags: ['placeholder'] });
    recordCall(store, { sessionId: 'tagged', metadata: { note: 'x\u0000y' } }, { stopReason: 'end' });
    store.addReward({ sessionId: 'tagged', value: 1, source: 'judge', createdAt: 2 });
    store.setPolicyVersion('step-1', 3);
    store.endSession('tagged', { status: 'completed', reason: 'explicit', endedAt: 4 });
    store.declareGroup({ groupId: 'task-a', expectedSize: 1, createdAt: 4 });
    store.ackGroups('batch-1', ['task-a'], 'trainer', 5);
  } finally {
    store.close();
  }
  const database = new Database(path);
  try {
    const columns = Object.keys(RAW_CALL_TEXTS);
    database.prepare(`UPDATE calls SET ${columns.map((column) => `${column} = @${column}`).join(', ')}`).run(RAW_CALL_TEXTS);
    database.prepare(`UPDATE sessions SET tags = ? WHERE id = 'tagged'`).run(JSON.stringify(RAW_TAGS));
    database.prepare(`UPDATE rewards SET source = ?`).run('judge\u0000');
    database.prepare(`UPDATE policy_versions SET version = ?`).run('step\u0000-1');
    database.prepare(`UPDATE group_acks SET consumer = ?`).run('trainer\u0000');
    database.pragma('user_version = 8');
  } finally {
    database.close();
  }
}

/** What a store of either engine reads back once schema 9 ran: U+FFFD for each U+0000 of its own texts. */
function expectRewritten(store: Store): void {
  const [call] = store.listCalls('tagged');
  expect(call).toMatchObject({
    path: '/v1/chat\ufffd',
    requestedModel: 'gpt\ufffd',
    backendModel: 'qwen\ufffd',
    policyVersion: 'step\ufffd1',
    backendId: 'vllm\ufffd',
    finishReason: 'stop\ufffd',
    stopReason: '\ufffdend',
    weightVersion: 'w\ufffd',
    // a JSON column keeps it escaped, as a new store does
    metadata: { note: 'x\u0000y' },
  });
  expect(store.getRollout('tagged')?.tags).toEqual(['t\ufffdx', 'lit\\u0000']);
  expect(store.listRewards('tagged').map((reward) => reward.source)).toEqual(['judge\ufffd']);
  expect(store.getPolicyVersion()?.version).toBe('step\ufffd-1');
  // the tag filters match tags as stored (PostgreSQL's jsonb could not read the escaped U+0000 at all)
  expect(store.countExportSessions({ tags: ['t\u0000x'] })).toBe(1);
  expect(store.countExportSessions({ tags: ['lit\\u0000'] })).toBe(1);
}

describe('SQLite: schema 9 rewrites U+0000 in the own texts and tags of an older store', () => {
  const workspace = workspaceForEachTest('sqlite');

  it('an older store opened read-write reads as a new one writes: U+FFFD for U+0000; JSON columns and literal escapes kept', () => {
    writeOlderStore(workspace.databasePath);
    const store = openStore({ path: workspace.databasePath });
    try {
      expectRewritten(store);
      const database = new Database(workspace.databasePath, { readonly: true });
      try {
        expect(readSchemaVersion(database)).toBe(LATEST_SCHEMA_VERSION);
        expect(database.prepare(`SELECT consumer FROM group_acks`).pluck().get()).toBe('trainer\ufffd');
        // no U+0000 is left in any of the rewritten columns (found by bytes: SQLite's text functions stop at it)
        const left = database
          .prepare(
            `SELECT count(*) FROM calls WHERE ${Object.keys(RAW_CALL_TEXTS)
              .map((column) => `instr(CAST(${column} AS BLOB), x'00') > 0`)
              .join(' OR ')}`,
          )
          .pluck()
          .get();
        expect(left).toBe(0);
      } finally {
        database.close();
      }
    } finally {
      store.close();
    }
  });
});

function failure(error: unknown): string {
  return isTokentapError(error) ? `${error.code}: ${error.message}` : String(error);
}

describe.skipIf(!postgresAvailable())(
  `tokentap migrate --from --to: an older SQLite store holding U+0000${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`,
  () => {
    const workspace = workspaceForEachTest('sqlite');
    const databases: string[] = [];
    afterAll(() => {
      for (const url of databases) dropTestDatabase(url);
    });
    const database = (): string => {
      const url = createTestDatabase('nulcopy');
      databases.push(url);
      return url;
    };

    it('is copied with U+FFFD for it in its own texts and tags, verified, and the copy filters by tag', async () => {
      writeOlderStore(workspace.databasePath);
      const to = database();
      const report = await copyStore({ from: workspace.databasePath, to, isGatewayLive: () => false });
      expect(report).toMatchObject({ migratedFrom: 8, verification: { sessions: 1, calls: 1 } });
      const store = openStore({ path: to, readonly: true });
      try {
        expectRewritten(store);
      } finally {
        store.close();
      }
    });

    it('an id holding U+0000 is refused before anything is written, naming the table, the column and the row', async () => {
      const path = workspace.databasePath;
      const store = openStore({ path });
      try {
        recordCall(store, { sessionId: 'clean' });
      } finally {
        store.close();
      }
      const raw = new Database(path);
      raw.prepare(`INSERT INTO sessions (id, created_at, activity_at, metadata) VALUES (?, 5, 5, '{}')`).run('bad\u0000id');
      raw.close();
      const to = database();
      const refusal = await copyStore({ from: path, to, isGatewayLive: () => false }).then(
        () => 'no error',
        (error: unknown) => failure(error),
      );
      expect(refusal).toMatch(/^STORE_COPY_REFUSED: the SQLite store's sessions\.id holds U\+0000 \(NUL\) in the row at rowid 2, /);
      // nothing was claimed: with the row gone the same database takes the copy as a new one
      const fix = new Database(path);
      fix.prepare(`DELETE FROM sessions WHERE rowid = 2`).run();
      fix.close();
      const report = await copyStore({ from: path, to, isGatewayLive: () => false });
      expect(report).toMatchObject({ resumed: false, verification: { sessions: 1, calls: 1 } });
    });
  },
);
