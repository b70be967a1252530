import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTempWorkspace,
  engineSuiteName,
  engineUnavailable,
  recordCall,
  sampleBeginInput,
  STORE_ENGINES,
  type TempWorkspace,
} from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: the viewer's counts`, () => {
    let workspace: TempWorkspace;
    beforeEach(() => {
      workspace = createTempWorkspace(engine);
    });
    afterEach(() => workspace.cleanup());

    it('counts calls per status and groups, and lists each group with its sessions, rewards and newest call', () => {
      const store = workspace.open();
      expect(store.countCallsByStatus()).toEqual({});
      expect(store.countGroups()).toBe(0);
      expect(store.listGroupSummaries()).toEqual([]);
      store.createRollout({ sessionId: 'a1', groupId: 'task-a', createdAt: 10 });
      store.createRollout({ sessionId: 'a2', groupId: 'task-a', createdAt: 11 });
      store.createRollout({ sessionId: 'b1', groupId: 'task-b', createdAt: 12 });
      store.createRollout({ sessionId: 'lone', createdAt: 13 });
      recordCall(store, { sessionId: 'a1', startedAt: 100 });
      recordCall(store, { sessionId: 'a2', startedAt: 300 }, { status: 'aborted' });
      recordCall(store, { sessionId: 'b1', startedAt: 200 });
      store.beginCall(sampleBeginInput({ sessionId: 'lone', startedAt: 400 }));
      store.addReward({ sessionId: 'a1', value: 1, source: 'library', createdAt: 1 });
      store.addReward({ sessionId: 'a2', value: 0, source: 'library', createdAt: 1 });
      store.addReward({ sessionId: 'a2', value: 0.5, source: 'library', createdAt: 2 });
      expect(store.countCallsByStatus()).toEqual({ ok: 2, aborted: 1, in_progress: 1 });
      expect(store.countGroups()).toBe(2);
      expect(store.listGroupSummaries()).toEqual([
        { groupId: 'task-a', sessions: 2, rewarded: 2, rewardMean: 0.75, lastCallAt: 300 },
        { groupId: 'task-b', sessions: 1, rewarded: 0, rewardMean: null, lastCallAt: 200 },
      ]);
    });

    it("gives the front doors and models of each listed session's calls, in one query", () => {
      const store = workspace.open();
      recordCall(store, { sessionId: 's1', frontDoor: 'openai-chat', requestedModel: 'gpt-x', backendModel: 'qwen' });
      recordCall(store, { sessionId: 's1', frontDoor: 'anthropic-messages', requestedModel: 'claude-x', backendModel: 'qwen' });
      recordCall(store, { sessionId: 's2', frontDoor: 'openai-chat', requestedModel: null, backendModel: null });
      store.ensureSession('empty');
      const kinds = store.listSessionCallKinds(['s1', 'empty', 's2']);
      expect(Object.fromEntries(kinds)).toEqual({
        s1: { frontDoors: ['anthropic-messages', 'openai-chat'], models: ['claude-x', 'gpt-x', 'qwen'] },
        empty: { frontDoors: [], models: [] },
        s2: { frontDoors: ['openai-chat'], models: [] },
      });
      expect(store.listSessionCallKinds([]).size).toBe(0);
    });
  });
}
