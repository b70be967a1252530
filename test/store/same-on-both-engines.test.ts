import { afterEach, describe, expect, it } from 'vitest';
import type { FinishCallInput, Store } from '../../store/index.js';
import { createTempWorkspace, engineUnavailable, recordCall, sampleBeginInput, sampleFinishInput, type TempWorkspace } from './store-fixtures.js';

/** The same writes on any store: rollouts in a group, calls of every end, rewards, a policy version, an ack. */
function writeScenario(store: Store): void {
  store.setPolicyVersion('step-1', 5);
  store.declareGroup({ groupId: 'task-7', expectedSize: 2, metadata: { prompt: 'add', z: 1, a: [1.5, null, true] }, createdAt: 10 });
  store.createRollout({
    sessionId: 'r-b',
    groupId: 'task-7',
    tags: ['math', 'easy'],
    split: 'train',
    task: { q: 2 },
    sampling: { t: 1 },
    createdAt: 11,
  });
  store.createRollout({ sessionId: 'r-a', groupId: 'task-7', createdAt: 12 });
  const finished: Array<Partial<FinishCallInput>> = [
    { status: 'ok', stopReason: 151645 },
    { status: 'ok', stopReason: '\n\n' },
    { status: 'backend_error', error: { code: 'TT_BACKEND_DOWN', message: 'down' }, httpStatus: 502, finishReason: null, stopReason: null },
    { status: 'aborted', completionTokenIds: [], completionLogprobs: [] },
  ];
  finished.forEach((finish, index) => {
    const prompt = [151644, 872, 198, ...Array.from({ length: index * 3 }, (_, id) => id + 2 ** 30)];
    recordCall(
      store,
      { sessionId: 'r-b', callId: `call-${index}`, startedAt: 100 + index, metadata: { turn: index, 'user-agent': 'x' } },
      { ...finish, promptTokenIds: prompt, endedAt: 150 + index, metadata: { retries: index } },
    );
  });
  store.beginCall(sampleBeginInput({ sessionId: 'r-a', callId: 'call-open', startedAt: 200 }));
  recordCall(
    store,
    { sessionId: 'implicit', callId: 'call-implicit', startedAt: 50 },
    { tokenSource: 'none', promptTokenIds: null, completionTokenIds: null, completionLogprobs: null },
  );
  store.addReward({ sessionId: 'r-b', value: 0.25, source: 'library', createdAt: 300 });
  store.addReward({ sessionId: 'r-b', callId: 'call-1', value: -1, components: { format: -1, answer: 0 }, source: 'library', createdAt: 301 });
  store.addReward({ sessionId: 'r-b', value: 1, source: 'admin', createdAt: 302 });
  store.finishCall('call-open', sampleFinishInput({ endedAt: 210 }));
  store.endSession('r-b', { status: 'completed', reason: 'explicit', endedAt: 400 });
  store.endSession('r-a', { status: 'failed', reason: 'explicit', endedAt: 401 });
  store.ackGroups('batch-1', store.listServableGroups({ limit: 4 }), 'trainer-0', 500);
}

/** Everything the contract reads back, as JSON (typed arrays as lists; export positions are each engine's own cursor). */
function readScenario(store: Store): string {
  const sessions = store.listSessions();
  return JSON.stringify(
    {
      sessions,
      counted: store.countSessions({ hasReward: true }),
      calls: sessions.map((session) => store.listCalls(session.id)),
      single: store.getCall('call-1'),
      bodies: store.getCallBodies('call-2'),
      rollouts: ['r-a', 'r-b', 'implicit'].map((id) => store.getRollout(id)),
      group: store.getGroup('task-7'),
      rewards: store.listRewards('r-b'),
      history: store.listRewards('r-b', { history: true }),
      ack: store.getBatchAck('batch-1'),
      units: store.listExportUnits({ limit: 10 }).map(({ position, ...unit }) => ({ ...unit, position: typeof position })),
      versions: store.listPolicyVersions(),
      faithful: store.listTokenFaithfulCallIds('r-b', 10),
      stats: { ...store.stats(), bytesOnDisk: 'engine' },
    },
    (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Int32Array) : value),
  );
}

// One scenario written to each engine reads back as the same JSON text: values, types (numbers, booleans, null),
// key order and row order alike.
describe.skipIf(engineUnavailable('postgres'))('the same writes read back identically on SQLite and PostgreSQL', () => {
  const workspaces: TempWorkspace[] = [];
  afterEach(() => {
    for (const workspace of workspaces.splice(0)) workspace.cleanup();
  });

  it('sessions, calls, bodies, rollouts, groups, rewards, acks and export units are the same JSON', () => {
    const [sqlite, postgres] = (['sqlite', 'postgres'] as const).map((engine) => {
      const workspace = createTempWorkspace(engine);
      workspaces.push(workspace);
      const store = workspace.open();
      writeScenario(store);
      return readScenario(store);
    });
    expect(JSON.parse(postgres as string)).toEqual(JSON.parse(sqlite as string));
    expect(postgres).toBe(sqlite);
  });
});
