import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyMigrations, readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../store/migrations/migrations.js';
import {
  engineSuiteName,
  engineUnavailable,
  recordCall,
  sampleBeginInput,
  sampleFinishInput,
  STORE_ENGINES,
  workspaceForEachTest,
} from './store-fixtures.js';

// issue 15: the replica that served each call and the backend's weight version are recorded on the call
for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: the backend replica and weight version of a call`, () => {
    const workspace = workspaceForEachTest(engine);

    it('keep the replica named at begin when the finish names none, and no weight version when none came', () => {
      const store = workspace.open();
      const callId = recordCall(store, { backendId: 'vllm-1' });
      expect(store.getCall(callId)).toMatchObject({ backendId: 'vllm-1', weightVersion: null });
      const nulled = recordCall(store, { backendId: 'vllm-1' }, { backendId: null, weightVersion: null });
      expect(store.getCall(nulled)).toMatchObject({ backendId: 'vllm-1', weightVersion: null });
    });

    it("take a failover's replica from the finish, and the weight version it reported, read singly and by session", () => {
      const store = workspace.open();
      const { callId } = store.beginCall(sampleBeginInput({ backendId: 'sglang-0', policyVersion: 'step-12' }));
      expect(store.getCall(callId)).toMatchObject({ status: 'in_progress', backendId: 'sglang-0', weightVersion: null });
      store.finishCall(callId, sampleFinishInput({ backendId: 'sglang-2', weightVersion: 'step-11', flags: ['weight_version_mismatch'] }));
      const expected = { backendId: 'sglang-2', weightVersion: 'step-11', policyVersion: 'step-12', flags: ['weight_version_mismatch'] };
      expect(store.getCall(callId)).toMatchObject(expected);
      expect(store.listCalls('session-a')).toMatchObject([expected]);
    });

    it('are stored as valid Unicode: a lone surrogate a backend sent becomes U+FFFD', () => {
      const store = workspace.open();
      const callId = recordCall(store, { backendId: 'r-\ud800' }, { weightVersion: 'step-\udc80' });
      expect(store.getCall(callId)).toMatchObject({ backendId: 'r-\ufffd', weightVersion: 'step-\ufffd' });
    });
  });
}

// SQLite only: PostgreSQL's schema starts at version 6 (store/postgres/migrations), it has no schema 5 to upgrade
describe('sqlite: a store of schema 5 (before the backend columns)', () => {
  const workspace = workspaceForEachTest('sqlite');

  it('a database of schema 5 migrates: its calls read back with neither, and new calls record both', () => {
    const before = new Database(workspace.databasePath);
    applyMigrations(before, MIGRATIONS.slice(0, 5));
    before.prepare(`INSERT INTO sessions (id, created_at, activity_at, metadata) VALUES ('old', 1, 1, '{}')`).run();
    const insertCall = before.prepare<[string, number, string]>(
      `INSERT INTO calls (id, session_id, seq, status, front_door, path, stream, policy_version, sampling_params, metadata, started_at, flags)
       VALUES (?, 'old', ?, ?, 'openai-chat', '/v1/chat/completions', 0, 'step-1', '{}', '{}', 1, '[]')`,
    );
    insertCall.run('old-ok', 1, 'ok');
    insertCall.run('old-open', 2, 'in_progress');
    before.close();

    const store = workspace.open();
    expect(store.getCall('old-ok')).toMatchObject({ status: 'ok', policyVersion: 'step-1', backendId: null, weightVersion: null });
    expect(store.listCalls('old').map((call) => [call.id, call.backendId, call.weightVersion])).toEqual([
      ['old-ok', null, null],
      ['old-open', null, null],
    ]);
    // a call begun before the upgrade ends under it
    store.finishCall('old-open', sampleFinishInput({ weightVersion: 'step-1' }));
    expect(store.getCall('old-open')).toMatchObject({ status: 'ok', backendId: null, weightVersion: 'step-1' });
    const fresh = recordCall(store, { sessionId: 'old', backendId: 'vllm-0' }, { weightVersion: null });
    expect(store.getCall(fresh)).toMatchObject({ seq: 3, backendId: 'vllm-0', weightVersion: null });
    store.close();

    const check = new Database(workspace.databasePath, { readonly: true });
    expect(readSchemaVersion(check)).toBe(LATEST_SCHEMA_VERSION);
    check.close();
  });
});
