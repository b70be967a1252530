import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/index.js';
import { createTempWorkspace, engineSuiteName, engineUnavailable, recordCall, STORE_ENGINES, type TempWorkspace } from './store-fixtures.js';

/** The reads of several sessions at once the export pages with (listCallsAndRewards, getRollouts): what one by one gives. */
for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: several sessions read at once`, () => {
    let workspace: TempWorkspace;
    let store: Store;
    beforeEach(() => {
      workspace = createTempWorkspace(engine);
      store = workspace.open();
      for (const [index, sessionId] of ['b', 'a', 'c'].entries()) {
        store.createRollout({ sessionId, createdAt: 10 + index });
        const first = recordCall(store, { sessionId, startedAt: 1 }, { promptTokenIds: [1, 2, 3], completionTokenIds: [4] });
        recordCall(store, { sessionId, startedAt: 2 }, { promptTokenIds: [1, 2, 3, 4, 5 + index], completionTokenIds: [6] });
        store.addReward({ sessionId, callId: first, value: 0.5, source: 'library', createdAt: 1 });
        store.addReward({ sessionId, value: index, source: 'library', createdAt: 2 });
        store.addReward({ sessionId, value: index + 1, source: 'library', createdAt: 3 }); // the session's current one
      }
      store.createRollout({ sessionId: 'empty', createdAt: 20 });
    });
    afterEach(() => workspace.cleanup());

    it('listCallsAndRewards gives each session what listCalls and listRewards give, one session without either, unknown ids empty', () => {
      const asked = ['c', 'empty', 'a', 'unknown', 'b', 'bad\u0000id'];
      const read = store.listCallsAndRewards(asked);
      expect([...read.keys()]).toEqual(asked);
      for (const sessionId of asked) {
        const entry = read.get(sessionId);
        const calls = sessionId.includes('\u0000') ? [] : store.listCalls(sessionId);
        expect(
          entry?.calls.map((call) => [call.id, call.seq, Array.from(call.promptTokenIds ?? []), Array.from(call.completionTokenIds ?? [])]),
        ).toEqual(calls.map((call) => [call.id, call.seq, Array.from(call.promptTokenIds ?? []), Array.from(call.completionTokenIds ?? [])]));
        expect(entry?.rewards).toEqual(sessionId.includes('\u0000') ? [] : store.listRewards(sessionId));
      }
      expect(read.get('a')?.rewards.map((reward) => [reward.callId === null, reward.value])).toEqual([
        [true, 2],
        [false, 0.5],
      ]);
      expect(store.listCallsAndRewards([]).size).toBe(0);
    });

    it('getRollouts gives the rollouts in the order asked for, leaving out sessions that do not exist', () => {
      const rollouts = store.getRollouts(['c', 'unknown', 'a', 'empty', 'bad\u0000id']);
      expect(rollouts.map((rollout) => rollout.id)).toEqual(['c', 'a', 'empty']);
      expect(rollouts).toEqual(['c', 'a', 'empty'].map((sessionId) => store.getRollout(sessionId)));
      expect(store.getRollouts([])).toEqual([]);
    });
  });
}
