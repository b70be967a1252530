import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALL_COLUMNS, callRecordFromRaw, type CallRecord } from '../../store/call-record.js';
import { createTempWorkspace, recordCall, type TempWorkspace } from './store-fixtures.js';

let workspace: TempWorkspace;
beforeEach(() => {
  workspace = createTempWorkspace();
});
afterEach(() => workspace.cleanup());

describe('raw call rows (the bulk session read)', () => {
  it('map every column of CALL_COLUMNS, in order, to the same record the driver builds', () => {
    const store = workspace.open();
    const first = recordCall(store, { policyVersion: 'policy-7', backendId: 'sglang-1' }, { weightVersion: 'policy-6' });
    const second = recordCall(
      store,
      {},
      { status: 'backend_error', error: { code: 'TT_BACKEND_DOWN', message: 'down' }, httpStatus: 502, finishReason: null, stopReason: 'STOP' },
    );
    store.close();
    const database = new Database(workspace.databasePath, { readonly: true });
    try {
      const names = CALL_COLUMNS.split(',').map((name) => name.trim());
      for (const callId of [first, second]) {
        const record = database.prepare<[string], CallRecord>(`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ?`).get(callId) as CallRecord;
        const raw = database.prepare<[string], unknown[]>(`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ?`).raw(true).get(callId) as unknown[];
        const mapped = callRecordFromRaw(raw);
        expect(Object.keys(mapped)).toEqual(names);
        expect(mapped).toEqual(record);
      }
    } finally {
      database.close();
    }
  });
});
