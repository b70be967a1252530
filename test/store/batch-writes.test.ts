import { describe, expect, it } from 'vitest';
import {
  engineSuiteName,
  engineUnavailable,
  sampleBeginInput,
  sampleFinishInput,
  STORE_ENGINES,
  storeErrorCode,
  workspaceForEachTest,
} from './store-fixtures.js';

// The recorder's group commit (gateway/recorder/batch-writer.ts): the ends of calls finishing together share one
// transaction, and a write that fails inside it must cost only itself. PostgreSQL aborts a whole transaction at its
// first error unless that error happened inside a savepoint, so this is where the engines could part.
for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: writes batched in one transaction`, () => {
    const workspace = workspaceForEachTest(engine);

    it('a write that fails inside a batch is undone alone: the writes around it commit, and later ones in the batch still run', () => {
      const store = workspace.open();
      const [first, twice, last] = ['first', 'twice', 'last'].map((callId) => store.beginCall(sampleBeginInput({ callId })).callId) as [
        string,
        string,
        string,
      ];
      store.finishCall(twice, sampleFinishInput());
      const failures = store.batch(() => {
        store.finishCall(first, sampleFinishInput({ promptTokenIds: [1, 2, 3] }));
        const codes = [
          storeErrorCode(() => store.finishCall(twice, sampleFinishInput())),
          storeErrorCode(() => store.finishCall('no-such-call', sampleFinishInput())),
          storeErrorCode(() => store.beginCall(sampleBeginInput({ callId: first }))),
          storeErrorCode(() => store.finishCall(last, sampleFinishInput({ promptTokenIds: [2 ** 31] }))),
        ];
        store.finishCall(last, sampleFinishInput({ promptTokenIds: [1, 2, 3, 4] }));
        return codes;
      });
      expect(failures).toEqual(['STORE_CALL_ALREADY_FINISHED', 'STORE_CALL_NOT_FOUND', 'not a StoreError', 'STORE_INVALID_INPUT']);
      const reader = workspace.open({ readonly: true });
      expect(reader.listCalls('session-a').map((call) => [call.id, call.status, Array.from(call.promptTokenIds ?? [])])).toEqual([
        ['first', 'ok', [1, 2, 3]],
        ['twice', 'ok', [151644, 872, 198, 14990, 151645]],
        ['last', 'ok', [1, 2, 3, 4]],
      ]);
    });

    it('a batch whose work throws commits none of it, and no later call takes one of its calls as a prompt parent', () => {
      const store = workspace.open();
      const parent = store.beginCall(sampleBeginInput({ callId: 'parent' })).callId;
      expect(() =>
        store.batch(() => {
          store.finishCall(parent, sampleFinishInput({ promptTokenIds: [5, 6, 7], completionTokenIds: [8] }));
          throw new Error('the batch fails after its first write');
        }),
      ).toThrow('the batch fails after its first write');
      expect(store.getCall(parent)).toMatchObject({ status: 'in_progress', promptTokenIds: null });
      const child = store.beginCall(sampleBeginInput({ callId: 'child' })).callId;
      store.finishCall(child, sampleFinishInput({ promptTokenIds: [5, 6, 7, 8, 9] }));
      store.finishCall(parent, sampleFinishInput({ promptTokenIds: [1], completionTokenIds: [2] }));
      const cold = workspace.open({ readonly: true });
      expect(['parent', 'child'].map((callId) => Array.from(cold.getCall(callId)?.promptTokenIds ?? []))).toEqual([[1], [5, 6, 7, 8, 9]]);
    });
  });
}
