import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportSummary, exportSamples } from '../../export/index.js';
import { openStore, type Store } from '../../store/index.js';
import { poisonRewards, setRawRewardValue } from '../helpers/poison-rewards.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

let fixture: ExportFixture;
let store: Store;
let ids: { a: string[]; b: string[]; single: string };

// The fixture (record-export-fixture.ts) with bad rewards written past the store, as an older tokentap could have:
// task-a's first rollout (reward 1) holds Infinity, task-b's first rollout components that parse to Infinity,
// and the ungrouped val rollout a call reward of 1e300 (finite, beyond ±1e30).
beforeAll(async () => {
  fixture = await recordExportFixture();
  const of = (groupId: string | null): string[] =>
    fixture.rollouts.filter((rollout) => rollout.groupId === groupId && rollout.reward !== null).map((rollout) => rollout.sessionId);
  ids = { a: of('task-a'), b: of('task-b'), single: of(null)[0]! };
  setRawRewardValue(fixture.dbPath, ids.a[0]!, Infinity);
  poisonRewards(fixture.dbPath, [{ sessionId: ids.b[0]!, value: 0.5, componentsJson: '{"a":1e999}' }]);
  store = openStore({ path: fixture.dbPath, readonly: true });
  const [lastCall] = store.listCalls(ids.single).slice(-1);
  store.close();
  poisonRewards(fixture.dbPath, [{ sessionId: ids.single, callId: lastCall!.id, value: 1e300 }]);
  store = openStore({ path: fixture.dbPath, readonly: true });
});
afterAll(() => {
  store.close();
  fixture.remove();
});

describe('exportSamples on a database holding rewards outside the reward rule', () => {
  it('leaves out each such rollout, counted invalid_reward, and exports every other sample with finite values', () => {
    const summary = createExportSummary();
    const items = [...exportSamples(store, { advantage: { estimator: 'grpo' }, summary })];
    expect(summary.dropped).toEqual({ invalid_reward: 3, status_failed: 1 });
    // task-a's other two rollouts (the second split into two samples) and task-b's second
    expect(items.map((item) => item.sample.sessionId)).toEqual([ids.a[1], ids.a[2], ids.a[2], ids.b[1]]);
    expect(summary.samples).toBe(4);
    for (const item of items) {
      expect(Number.isFinite(item.sample.reward)).toBe(true);
      expect(Number.isFinite(item.advantage)).toBe(true);
    }
    // the baseline is over the rollouts kept: task-a's rewards 0 and 1 give -+1/sqrt(2); task-b is a group of one
    expect(items.map((item) => item.advantage)).toEqual([
      expect.closeTo(-Math.SQRT1_2, 5),
      expect.closeTo(Math.SQRT1_2, 5),
      expect.closeTo(Math.SQRT1_2, 5),
      0,
    ]);
  });

  it('every estimator gives finite advantages on what is kept', () => {
    for (const estimator of ['grpo', 'dr-grpo', 'rloo'] as const) {
      for (const item of exportSamples(store, { advantage: { estimator, epsilon: 0 } }))
        expect(Number.isFinite(item.advantage), estimator).toBe(true);
    }
  });
});
