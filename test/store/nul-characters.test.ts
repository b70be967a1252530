import { describe, expect, it } from 'vitest';
import {
  engineSuiteName,
  engineUnavailable,
  recordCall,
  sampleBeginInput,
  STORE_ENGINES,
  storeErrorCode,
  workspaceForEachTest,
} from './store-fixtures.js';

// PostgreSQL's TEXT cannot hold U+0000 (nor can its jsonb read a \u0000 escape); SQLite's can. The store keeps what
// both can: a column text of its own gets U+FFFD for it on both engines, JSON columns keep it escaped, bodies keep
// their exact bytes.
for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: U+0000 in what is stored`, () => {
    const workspace = workspaceForEachTest(engine);

    it("a call's column texts keep U+FFFD for it; its JSON columns and bodies keep it as sent", () => {
      const store = workspace.open();
      const requestBody = { model: 'm', messages: [{ role: 'user', content: 'a\u0000b' }] };
      const callId = recordCall(
        store,
        {
          path: '/v1/chat\u0000',
          requestedModel: 'gpt\u0000',
          backendModel: 'qwen\u0000',
          policyVersion: 'step\u00001',
          backendId: 'vllm\u0000',
          metadata: { note: 'x\u0000y' },
          samplingParams: { stop: ['\u0000'] },
          requestBody,
        },
        {
          finishReason: 'stop\u0000',
          stopReason: '\u0000end',
          weightVersion: 'w\u0000',
          error: { message: 'e\u0000' },
          responseBody: { text: 'r\u0000' },
          responseStream: 'data: "\\u0000"\n\n\u0000',
        },
      );
      const expected = {
        path: '/v1/chat\ufffd',
        requestedModel: 'gpt\ufffd',
        backendModel: 'qwen\ufffd',
        policyVersion: 'step\ufffd1',
        backendId: 'vllm\ufffd',
        finishReason: 'stop\ufffd',
        stopReason: '\ufffdend',
        weightVersion: 'w\ufffd',
        metadata: { note: 'x\u0000y' },
        samplingParams: { stop: ['\u0000'] },
        error: { message: 'e\u0000' },
      };
      expect(store.getCall(callId)).toMatchObject(expected);
      expect(store.listCalls('session-a')).toMatchObject([expected]);
      expect(store.getCallBodies(callId)).toMatchObject({
        requestBody,
        responseBody: { text: 'r\u0000' },
        responseStream: 'data: "\\u0000"\n\n\u0000',
      });
    });

    it('a tag keeps U+FFFD for it, and selecting by tags still works for every rollout', () => {
      const store = workspace.open();
      store.declareGroup({ groupId: 'g', expectedSize: 1, createdAt: 1 });
      store.createRollout({ sessionId: 'r-nul', groupId: 'g', tags: ['math\u0000', 'easy'], createdAt: 1 });
      store.createRollout({ sessionId: 'r-plain', tags: ['math'], createdAt: 2 });
      store.endSession('r-nul', { status: 'completed', reason: 'explicit', endedAt: 3 });
      expect(store.getRollout('r-nul')?.tags).toEqual(['math\ufffd', 'easy']);
      expect(store.listServableGroups({ limit: 10, tags: ['easy'] })).toEqual(['g']);
      expect(store.listServableGroups({ limit: 10, tags: ['math\u0000'] })).toEqual(['g']);
      expect(store.listExportUnits({ limit: 10, tags: ['math'] }).map((unit) => unit.sessionId)).toEqual(['r-plain']);
      expect(store.listExportUnits({ limit: 10, tags: ['math\ufffd'] }).map((unit) => unit.sessionId)).toEqual(['r-nul']);
    });

    it('a policy version, a reward source and an ack consumer keep U+FFFD for it', () => {
      const store = workspace.open();
      expect(store.setPolicyVersion('v\u00001', 1)).toEqual({ version: 'v\ufffd1', setAt: 1 });
      expect(store.getPolicyVersion()).toEqual({ version: 'v\ufffd1', setAt: 1 });
      recordCall(store, { sessionId: 's' });
      expect(store.addReward({ sessionId: 's', value: 1, source: 'judge\u0000', createdAt: 2 }).source).toBe('judge\ufffd');
      store.declareGroup({ groupId: 'g', expectedSize: 1, createdAt: 1 });
      store.createRollout({ sessionId: 'r', groupId: 'g', createdAt: 1 });
      store.endSession('r', { status: 'completed', reason: 'explicit', endedAt: 2 });
      store.ackGroups('b-1', ['g'], 'trainer\u0000', 3);
      expect(store.getBatchAck('b-1')?.consumer).toBe('trainer\ufffd');
    });

    it('an id holding U+0000 is refused with STORE_INVALID_INPUT, writing nothing', () => {
      const store = workspace.open();
      expect(storeErrorCode(() => store.beginCall(sampleBeginInput({ sessionId: 'a\u0000b' })))).toBe('STORE_INVALID_INPUT');
      expect(storeErrorCode(() => store.beginCall(sampleBeginInput({ callId: 'c\u0000' })))).toBe('STORE_INVALID_INPUT');
      expect(storeErrorCode(() => store.ensureSession('a\u0000b'))).toBe('STORE_INVALID_INPUT');
      expect(storeErrorCode(() => store.createRollout({ sessionId: 'r\u0000', createdAt: 1 }))).toBe('STORE_INVALID_INPUT');
      expect(storeErrorCode(() => store.createRollout({ sessionId: 'r', groupId: 'g\u0000', createdAt: 1 }))).toBe('STORE_INVALID_INPUT');
      expect(storeErrorCode(() => store.declareGroup({ groupId: 'g\u0000', expectedSize: 1, createdAt: 1 }))).toBe('STORE_INVALID_INPUT');
      expect(store.stats()).toMatchObject({ sessions: 0, calls: 0 });
      // a filter naming such an id matches nothing, on both
      expect(store.listExportUnits({ limit: 10, sessionIds: ['r\u0000'] })).toEqual([]);
      expect(store.listServableGroups({ limit: 10, excludeIds: ['g\u0000'] })).toEqual([]);
    });

    it('a lookup by an id holding U+0000 finds nothing on SQLite; PostgreSQL, whose text cannot hold one, refuses it', () => {
      const store = workspace.open();
      const lookups = [
        () => store.getSession('a\u0000'),
        () => store.getCall('c\u0000'),
        () => store.listCalls('a\u0000'),
        () => store.getRollout('r\u0000'),
        () => store.getGroup('g\u0000'),
      ];
      if (engine === 'sqlite') expect(lookups.map((lookup) => lookup())).toEqual([null, null, [], null, null]);
      else expect(lookups.map(storeErrorCode)).toEqual(lookups.map(() => 'STORE_INVALID_INPUT'));
    });
  });
}
