import { describe, expect, it } from 'vitest';
import { engineSuiteName, engineUnavailable, recordCall, sampleBeginInput, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: the viewer's counts`, () => {
    const workspace = workspaceForEachTest(engine);

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

    it('reads a change mark that moves with each kind of change the viewer shows, and only then', () => {
      const store = workspace.open();
      const mark = (): string => JSON.stringify(store.readChangeMark());
      expect(store.readChangeMark()).toEqual({ newestActivityAt: null, callsInProgress: 0, newestRewardId: null, openSessions: 0 });
      const seen = [mark()];
      const moved = (what: string): void => {
        expect(mark(), what).not.toBe(seen.at(-1));
        seen.push(mark());
      };
      store.createRollout({ sessionId: 'r', groupId: 'g', createdAt: 10 });
      moved('a session made');
      const { callId } = store.beginCall(sampleBeginInput({ sessionId: 'r', startedAt: 20 }));
      moved('a call begun');
      expect(mark()).toBe(seen.at(-1)); // read again, nothing done: the same
      store.markCallsIncomplete([callId]);
      moved('a call ended');
      store.addReward({ sessionId: 'r', value: 1, source: 'library', createdAt: 30 });
      moved('a reward posted');
      store.endSession('r', { status: 'completed', reason: 'explicit', endedAt: 40 });
      moved('a session ended');
      expect(store.readChangeMark()).toMatchObject({ newestActivityAt: 20, callsInProgress: 0, openSessions: 0 });
      expect(typeof store.readChangeMark().newestRewardId).toBe('number');
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
