import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { engineSuiteName, engineUnavailable, recordCall, sampleBeginInput, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: sessions and stats`, () => {
    const workspace = workspaceForEachTest(engine);

    it('listSessions gives per-session aggregates, most recently active first, with limit and offset', () => {
      const store = workspace.open();
      recordCall(store, { sessionId: 'old', startedAt: 100 }, { promptTokenIds: [1, 2], completionTokenIds: [3] });
      recordCall(store, { sessionId: 'new', startedAt: 200 }, { promptTokenIds: [1, 2, 3], completionTokenIds: [4, 5] });
      recordCall(store, { sessionId: 'new', startedAt: 300 }, { status: 'aborted', promptTokenIds: [1], completionTokenIds: [] });
      store.beginCall(sampleBeginInput({ sessionId: 'new', startedAt: 400 }));
      recordCall(
        store,
        { sessionId: 'counted', startedAt: 150 },
        {
          tokenSource: 'none',
          promptTokenIds: null,
          completionTokenIds: null,
          completionLogprobs: null,
          usage: { promptTokens: 10, completionTokens: 20 },
        },
      );
      expect(store.listSessions().map((session) => session.id)).toEqual(['new', 'counted', 'old']);
      expect(store.listSessions({ limit: 1, offset: 0 })).toEqual([
        expect.objectContaining({
          id: 'new',
          callCount: 3,
          promptTokens: 4,
          completionTokens: 2,
          lastCallAt: 400,
          statusCounts: { ok: 1, aborted: 1, in_progress: 1 },
        }),
      ]);
      expect(store.listSessions({ limit: 5, offset: 1 })).toEqual([
        expect.objectContaining({ id: 'counted', promptTokens: 10, completionTokens: 20, statusCounts: { ok: 1 } }),
        expect.objectContaining({ id: 'old', callCount: 1, promptTokens: 2, completionTokens: 1, lastCallAt: 100 }),
      ]);
    });

    it('listSessions gives rollout status, group and current reward, and filters on them; countSessions counts the matches', () => {
      const store = workspace.open();
      store.createRollout({ sessionId: 'a', groupId: 'task-1', createdAt: 10 });
      store.createRollout({ sessionId: 'b', groupId: 'task-1', createdAt: 20 });
      store.createRollout({ sessionId: 'c', createdAt: 30 });
      recordCall(store, { sessionId: 'a', startedAt: 100 });
      recordCall(store, { sessionId: 'b', startedAt: 200, frontDoor: 'anthropic-messages', requestedModel: 'claude-x', backendModel: 'qwen' });
      recordCall(store, { sessionId: 'c', startedAt: 300 });
      store.addReward({ sessionId: 'a', value: 0, source: 'library', createdAt: 1 });
      store.addReward({ sessionId: 'a', value: 1, source: 'library', createdAt: 2 });
      store.addReward({ sessionId: 'b', value: 0.25, source: 'library', createdAt: 3 });
      // a call's reward is not the session's
      store.addReward({ sessionId: 'c', callId: store.listCalls('c')[0]!.id, value: 5, source: 'library', createdAt: 4 });
      store.endSession('a', { status: 'completed', reason: 'explicit', endedAt: 400 });
      expect(store.getSession('a')).toMatchObject({ status: 'completed', origin: 'api', groupId: 'task-1', reward: 1 });
      expect(store.getSession('c')).toMatchObject({ status: 'open', groupId: null, reward: null });
      const ids = (filter: Parameters<typeof store.listSessions>[0]): string[] => store.listSessions(filter).map((session) => session.id);
      expect(ids({})).toEqual(['c', 'b', 'a']);
      expect(ids({ groupId: 'task-1' })).toEqual(['b', 'a']);
      expect(ids({ status: 'open' })).toEqual(['c', 'b']);
      expect(ids({ hasReward: true })).toEqual(['b', 'a']);
      expect(ids({ hasReward: false })).toEqual(['c']);
      expect(ids({ minReward: 0.5 })).toEqual(['a']);
      expect(ids({ maxReward: 0.5 })).toEqual(['b']);
      expect(ids({ since: 200, until: 300 })).toEqual(['b']);
      expect(ids({ frontDoor: 'anthropic-messages' })).toEqual(['b']);
      expect(ids({ model: 'qwen' })).toEqual(['b']);
      expect(ids({ model: 'claude-x' })).toEqual(['b']);
      expect(ids({ groupId: 'task-1', limit: 1, offset: 1 })).toEqual(['a']);
      expect(store.countSessions()).toBe(3);
      expect(store.countSessions({ groupId: 'task-1', hasReward: true })).toBe(2);
      expect(store.countSessions({ status: 'failed' })).toBe(0);
    });

    it('listSessions searches ids and group ids by substring, and orders by any key both ways, ties by id', () => {
      const store = workspace.open();
      store.createRollout({ sessionId: 'run-a', groupId: 'task-7', createdAt: 30 });
      store.createRollout({ sessionId: 'run-b', groupId: 'task-8', createdAt: 10 });
      store.createRollout({ sessionId: 'other', createdAt: 20 });
      store.createRollout({ sessionId: 'idle', createdAt: 5 });
      recordCall(store, { sessionId: 'run-a', startedAt: 100 }, { promptTokenIds: [1, 2, 3, 4], completionTokenIds: [5] });
      recordCall(store, { sessionId: 'run-b', startedAt: 200 }, { promptTokenIds: [1], completionTokenIds: [2, 3, 4] });
      recordCall(store, { sessionId: 'run-b', startedAt: 300 }, { promptTokenIds: [1, 2], completionTokenIds: [3] });
      recordCall(store, { sessionId: 'other', startedAt: 150 }, { promptTokenIds: [1, 2], completionTokenIds: [3, 4] });
      store.addReward({ sessionId: 'run-a', value: 0.5, source: 'library', createdAt: 1 });
      store.addReward({ sessionId: 'other', value: 2, source: 'library', createdAt: 1 });
      const ids = (query: Parameters<typeof store.listSessions>[0]): string[] => store.listSessions(query).map((session) => session.id);
      expect(ids({ search: 'run-' })).toEqual(['run-b', 'run-a']);
      expect(ids({ search: 'task-7' })).toEqual(['run-a']);
      expect(ids({ search: 'RUN' })).toEqual([]);
      // `%` and `_` are plain characters, not wildcards
      expect(ids({ search: 'run%' })).toEqual([]);
      expect(ids({ search: 'r_n' })).toEqual([]);
      expect(store.countSessions({ search: 'run-' })).toBe(2);
      expect(ids({ orderBy: 'lastCallAt', order: 'asc' })).toEqual(['idle', 'run-a', 'other', 'run-b']);
      expect(ids({ orderBy: 'createdAt' })).toEqual(['run-a', 'other', 'run-b', 'idle']);
      expect(ids({ orderBy: 'createdAt', order: 'asc' })).toEqual(['idle', 'run-b', 'other', 'run-a']);
      expect(ids({ orderBy: 'callCount' })).toEqual(['run-b', 'other', 'run-a', 'idle']);
      expect(ids({ orderBy: 'callCount', order: 'asc' })).toEqual(['idle', 'other', 'run-a', 'run-b']);
      expect(ids({ orderBy: 'promptTokens' })).toEqual(['run-a', 'run-b', 'other', 'idle']);
      expect(ids({ orderBy: 'completionTokens', order: 'asc' })).toEqual(['idle', 'run-a', 'other', 'run-b']);
      // sessions without a reward come last, whichever the order
      expect(ids({ orderBy: 'reward' })).toEqual(['other', 'run-a', 'idle', 'run-b']);
      expect(ids({ orderBy: 'reward', order: 'asc' })).toEqual(['run-a', 'other', 'idle', 'run-b']);
      expect(ids({ orderBy: 'id' })).toEqual(['run-b', 'run-a', 'other', 'idle']);
      expect(ids({ orderBy: 'id', order: 'asc' })).toEqual(['idle', 'other', 'run-a', 'run-b']);
      expect(ids({ orderBy: 'callCount', limit: 2, offset: 1 })).toEqual(['other', 'run-a']);
      expect(ids({ orderBy: 'promptTokens', search: 'run', order: 'asc' })).toEqual(['run-b', 'run-a']);
      expect(store.listSessions({ orderBy: 'callCount' })[0]).toMatchObject({ id: 'run-b', callCount: 2, promptTokens: 3, completionTokens: 4 });
    });

    it('stats counts sessions and calls, and the bytes the store takes', () => {
      const store = workspace.open();
      recordCall(store, { sessionId: 'a' });
      recordCall(store, { sessionId: 'b' });
      recordCall(store, { sessionId: 'b' });
      expect(store.stats()).toEqual({ sessions: 2, calls: 3, bytesOnDisk: expect.any(Number) });
      expect(store.stats().bytesOnDisk).toBeGreaterThan(0);
    });

    it('closing and reopening the file keeps sessions, calls, token ids and bodies', () => {
      const first = workspace.open();
      first.ensureSession('kept', { harness: 'qwen-code' });
      const callIds = [1, 2, 3].map((turn) =>
        recordCall(first, { sessionId: 'kept', startedAt: turn }, { promptTokenIds: Array.from({ length: turn * 10 }, (_, id) => id) }),
      );
      const pending = first.beginCall(sampleBeginInput({ sessionId: 'kept', startedAt: 4 })).callId;
      const before = { sessions: first.listSessions(), calls: first.listCalls('kept'), bodies: callIds.map((id) => first.getCallBodies(id)) };
      first.close();
      const second = workspace.open();
      expect(second.listSessions()).toEqual(before.sessions);
      expect(second.listCalls('kept')).toEqual(before.calls);
      expect(callIds.map((id) => second.getCallBodies(id))).toEqual(before.bodies);
      expect(second.getCall(pending)?.status).toBe('in_progress');
      expect(second.integrityCheck()).toBe('ok');
    });
  });
}

// SQLite only: the size of the file and its WAL, and a database in memory, are SQLite's own
describe('sqlite: file sizes and in-memory stores', () => {
  const workspace = workspaceForEachTest('sqlite');

  it('stats reports the main file plus WAL bytes', () => {
    const store = workspace.open();
    recordCall(store, { sessionId: 'a' });
    recordCall(store, { sessionId: 'b' });
    recordCall(store, { sessionId: 'b' });
    const stats = store.stats();
    const mainBytes = statSync(workspace.databasePath).size;
    const walBytes = statSync(`${workspace.databasePath}-wal`).size;
    expect(stats).toEqual({ sessions: 2, calls: 3, bytesOnDisk: mainBytes + walBytes });
    expect(walBytes).toBeGreaterThan(0);
  });

  it('an in-memory store works and reports its size', () => {
    const store = openStore({ path: ':memory:' });
    try {
      const callId = recordCall(store);
      expect(store.getCall(callId)?.completionTokenIds).toEqual(Int32Array.from([9707, 0, 151645]));
      expect(store.stats().bytesOnDisk).toBeGreaterThan(0);
      expect(store.integrityCheck()).toBe('ok');
    } finally {
      store.close();
    }
  });
});
