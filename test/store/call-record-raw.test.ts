import { describe, expect, it } from 'vitest';
import { CALL_COLUMNS, callRecordFromRaw, type CallRecord } from '../../store/call-record.js';
import { engineSuiteName, engineUnavailable, recordCall, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: raw call rows (the bulk session read)`, () => {
    const workspace = workspaceForEachTest(engine);

    it('map every column of CALL_COLUMNS, in order, to the same record the driver builds', () => {
      const store = workspace.open();
      const first = recordCall(store, { policyVersion: 'policy-7', backendId: 'sglang-1' }, { weightVersion: 'policy-6' });
      const second = recordCall(
        store,
        {},
        { status: 'backend_error', error: { code: 'TT_BACKEND_DOWN', message: 'down' }, httpStatus: 502, finishReason: null, stopReason: 'STOP' },
      );
      const third = recordCall(store, {}, { stopReason: 151645 });
      store.close();
      workspace.inspect((database) => {
        const names = CALL_COLUMNS.split(',').map((name) => name.trim());
        for (const callId of [first, second, third]) {
          const record = database.prepare<[string], CallRecord>(`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ?`).get(callId) as CallRecord;
          const raw = database.prepare<[string], unknown[]>(`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ?`).raw(true).get(callId) as unknown[];
          const mapped = callRecordFromRaw(raw);
          expect(Object.keys(mapped)).toEqual(names);
          expect(mapped).toEqual(record);
        }
      });
    });
  });
}
