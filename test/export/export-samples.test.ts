import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportSummary, exportSamples, type ExportSamplesOptions } from '../../export/index.js';
import type { ExportSummary } from '../../export/export-options.js';
import { reconstructSessionReport, verifySample } from '../../reconstruct/index.js';
import { openStore, type Store } from '../../store/index.js';
import type { ExportSample } from '../../trainer-adapters/export-sample.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

let fixture: ExportFixture;
let store: Store;
/** session ids by role: task-a's three rollouts, task-b's two, the ungrouped val rollout, the failed one */
let ids: { a: string[]; b: string[]; single: string; failed: string };

beforeAll(async () => {
  fixture = await recordExportFixture();
  store = openStore({ path: fixture.dbPath, readonly: true });
  const of = (groupId: string): string[] => fixture.rollouts.filter((rollout) => rollout.groupId === groupId).map((rollout) => rollout.sessionId);
  const ungrouped = fixture.rollouts.filter((rollout) => rollout.groupId === null);
  ids = { a: of('task-a'), b: of('task-b'), single: ungrouped[0]!.sessionId, failed: ungrouped[1]!.sessionId };
});
afterAll(() => {
  store.close();
  fixture.remove();
});

/** Runs the export, checks every exported sample against the raw call rows, and returns items and summary. */
function exportAll(options: Omit<ExportSamplesOptions, 'summary'> = {}): { items: ExportSample[]; summary: ExportSummary } {
  const summary = createExportSummary();
  const items = [...exportSamples(store, { ...options, summary })];
  for (const item of items) expect(verifySample(item.sample, store.listCalls(item.sample.sessionId))).toEqual({ ok: true });
  return { items, summary };
}

const sessionsOf = (items: ExportSample[]): string[] => items.map((item) => item.sample.sessionId);
const advantageOf = (items: ExportSample[], sessionId: string): number | null | undefined =>
  items.find((item) => item.sample.sessionId === sessionId)?.advantage;
/** GRPO on task-a's rewards [1, 0, 1]: mean 2/3, Bessel std sqrt(1/3) */
const grpoA = (reward: number, epsilon = 1e-6): number => (reward - 2 / 3) / (Math.sqrt(1 / 3) + epsilon);

describe('exportSamples on recorded rollouts', () => {
  it('streams units oldest first, a group together, rollouts in group order, samples in chain order', () => {
    const { items } = exportAll();
    const [a0, a1, a2] = ids.a as [string, string, string];
    expect(sessionsOf(items)).toEqual([a0, a1, a2, a2, ids.b[0], ids.b[1], ids.single]);
    expect(items.map((item) => item.groupKey)).toEqual(['task-a', 'task-a', 'task-a', 'task-a', 'task-b', 'task-b', ids.single]);
    expect(items.map((item) => item.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(items.map((item) => item.groupIndex)).toEqual([0, 0, 0, 0, 1, 1, 2]);
    expect(items.map((item) => item.rolloutIndex)).toEqual([0, 1, 2, 2, 3, 4, 5]);
    expect(items.map((item) => item.repetitionIndex)).toEqual([0, 1, 2, 2, 0, 1, 0]);
    expect(items.map((item) => [item.rolloutSampleIndex, item.rolloutSampleCount])).toEqual([
      [0, 1],
      [0, 1],
      [0, 2],
      [1, 2],
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
    expect(items.filter((item) => item.sample.sessionId === a2).map((item) => item.sample.chainIndex)).toEqual([0, 1]);
    expect(items.map((item) => item.policyVersions)).toEqual([['v1'], ['v1'], ['v1'], ['v1'], ['v2'], ['v2'], ['v2']]);
  });

  it('gives GRPO advantages over each group (Bessel std), 0 to a zero-variance group and to a group of one', () => {
    const { items } = exportAll({ advantage: { estimator: 'grpo' } });
    expect(advantageOf(items, ids.a[0]!)).toBeCloseTo(grpoA(1), 12);
    expect(advantageOf(items, ids.a[1]!)).toBeCloseTo(grpoA(0), 12);
    expect(advantageOf(items, ids.a[2]!)).toBeCloseTo(grpoA(1), 12);
    expect(items.filter((item) => item.sample.sessionId === ids.a[2]).map((item) => item.advantage)).toEqual(
      [grpoA(1), grpoA(1)].map((value) => expect.closeTo(value, 12)),
    );
    expect(advantageOf(items, ids.b[0]!)).toBe(0);
    expect(advantageOf(items, ids.b[1]!)).toBe(0);
    expect(advantageOf(items, ids.single)).toBe(0);
  });

  it('uses the given epsilon, mean-centres without std, and computes dr-grpo, rloo and none', () => {
    expect(advantageOf(exportAll({ advantage: { epsilon: 1 } }).items, ids.a[1]!)).toBeCloseTo(grpoA(0, 1), 12);
    const centred = exportAll({ advantage: { estimator: 'grpo', normalizeStd: false } }).items;
    expect([advantageOf(centred, ids.a[0]!), advantageOf(centred, ids.a[1]!)]).toEqual([expect.closeTo(1 / 3, 12), expect.closeTo(-2 / 3, 12)]);
    const dr = exportAll({ advantage: { estimator: 'dr-grpo' } }).items;
    expect([advantageOf(dr, ids.a[0]!), advantageOf(dr, ids.a[1]!), advantageOf(dr, ids.b[0]!)]).toEqual([
      expect.closeTo(1 / 3, 12),
      expect.closeTo(-2 / 3, 12),
      0,
    ]);
    // rloo: r minus the mean of the others: 1 - (0 + 1) / 2, 0 - (1 + 1) / 2
    const rloo = exportAll({ advantage: { estimator: 'rloo' } }).items;
    expect([advantageOf(rloo, ids.a[0]!), advantageOf(rloo, ids.a[1]!), advantageOf(rloo, ids.single)]).toEqual([
      expect.closeTo(0.5, 12),
      expect.closeTo(-1, 12),
      0,
    ]);
    expect(exportAll({ advantage: { estimator: 'none' } }).items.map((item) => item.advantage)).toEqual(Array(7).fill(null));
  });

  it('drops zero-variance groups (a group of one included), counting each sample dropped', () => {
    const { items, summary } = exportAll({ advantage: { dropZeroVarianceGroups: true } });
    expect(new Set(sessionsOf(items))).toEqual(new Set(ids.a));
    expect(items.map((item) => item.groupIndex)).toEqual([0, 0, 0, 0]);
    expect(summary.dropped).toEqual({ zero_variance_group: 3, status_failed: 1 });
    expect(summary.groups).toBe(1);
  });

  it('weighs the split rollout 1/2 per sample and every other rollout 1, on the export sample and the sample', () => {
    const { items } = exportAll();
    expect(items.map((item) => item.lossWeight)).toEqual([1, 1, 0.5, 0.5, 1, 1, 1]);
    expect(items.map((item) => item.sample.lossWeight)).toEqual([1, 1, 0.5, 0.5, 1, 1, 1]);
  });

  it('recomputes loss weights after a drop: the split rollout keeps one sample, of weight 1', () => {
    const split = exportAll().items.filter((item) => item.sample.sessionId === ids.a[2]);
    const [shorter, longer] = split.map((item) => item.sample.tokens.length).sort((x, y) => x - y) as [number, number];
    expect(shorter).toBeLessThan(longer);
    const { items, summary } = exportAll({ filters: { maxLength: shorter } });
    const kept = items.filter((item) => item.sample.sessionId === ids.a[2]);
    expect(kept.map((item) => [item.sample.tokens.length, item.lossWeight, item.sample.lossWeight, item.rolloutSampleCount])).toEqual([
      [shorter, 1, 1, 1],
    ]);
    expect(summary.dropped.too_long).toBe(exportAll().items.filter((item) => item.sample.tokens.length > shorter).length);
  });

  it('keeps completed samples by default; an explicit status list exports the failed rollout with weight 0', () => {
    expect(exportAll().summary.dropped).toEqual({ status_failed: 1 });
    const { items, summary } = exportAll({ filters: { status: ['failed'] } });
    expect(items.map((item) => [item.sample.sessionId, item.sample.status, item.lossWeight, item.advantage])).toEqual([
      [ids.failed, 'failed', 0, null],
    ]);
    expect(summary.dropped).toEqual({ status_completed: 7 });
  });

  it('counts sessions, groups, samples, tokens, trained tokens, drops, skipped calls and drift', () => {
    const { items, summary } = exportAll();
    const everySession = fixture.rollouts.map((rollout) => reconstructSessionReport(store, rollout.sessionId));
    const drift: Record<string, number> = {};
    for (const report of everySession)
      for (const [kind, count] of Object.entries(report.driftCounts)) if (count > 0) drift[kind] = (drift[kind] ?? 0) + count;
    expect(Object.keys(drift).length).toBeGreaterThan(0);
    expect(summary).toEqual({
      sessions: 6,
      groups: 3,
      samples: 7,
      tokens: items.reduce((total, item) => total + item.sample.tokens.length, 0),
      trainedTokens: items.reduce((total, item) => total + item.sample.lossMask.filter((value) => value === 1).length, 0),
      dropped: { status_failed: 1 },
      skippedCalls: {},
      drift,
      // the third task-a rollout breaks at template-rerender; task-b (0.5, 0.5) and the val rollout (a group of one) have no spread
      templateRerenderRollouts: 1,
      zeroVarianceGroups: 2,
      bytes: 0,
    });
  });

  it('tells progress after each unit, sessions done against the total', () => {
    const progress: Array<{ sessionsDone: number; sessionsTotal: number }> = [];
    Array.from(exportSamples(store, { onProgress: (update) => progress.push(update) }));
    expect(progress).toEqual([3, 5, 6, 7].map((sessionsDone) => ({ sessionsDone, sessionsTotal: 7 })));
  });
});

describe('exportSamples rollout-level filters', () => {
  it('since and until select rollouts by creation time', () => {
    const firstB = store.getRollout(ids.b[0]!)!.createdAt;
    expect(sessionsOf(exportAll({ filters: { since: firstB } }).items)).toEqual([...ids.b, ids.single]);
    expect(new Set(sessionsOf(exportAll({ filters: { until: firstB } }).items))).toEqual(new Set(ids.a));
  });

  it('tags, split, session ids and group ids select rollouts', () => {
    expect(new Set(sessionsOf(exportAll({ filters: { tags: ['math'] } }).items))).toEqual(new Set([...ids.a, ...ids.b]));
    expect(sessionsOf(exportAll({ filters: { tags: ['math', 'hard'] } }).items)).toEqual(ids.b);
    expect(sessionsOf(exportAll({ filters: { split: 'val' } }).items)).toEqual([ids.single]);
    expect(sessionsOf(exportAll({ filters: { sessionIds: [ids.single, ids.a[1]!] } }).items)).toEqual([ids.a[1], ids.single]);
    expect(sessionsOf(exportAll({ filters: { groupIds: ['task-b'] } }).items)).toEqual(ids.b);
  });

  it('a selected rollout subset is its group baseline: task-a without its 0-reward rollout has advantage 0', () => {
    const { items } = exportAll({ filters: { sessionIds: [ids.a[0]!, ids.a[1]!] }, advantage: { estimator: 'rloo' } });
    expect(items.map((item) => [item.repetitionIndex, item.advantage])).toEqual([
      [0, 1],
      [1, -1],
    ]);
    const high = exportAll({ filters: { rewardMin: 0.5 } }).items;
    expect(new Set(sessionsOf(high))).toEqual(new Set([ids.a[0], ids.a[2], ...ids.b]));
    expect(high.map((item) => item.advantage)).toEqual([0, 0, 0, 0, 0]);
  });

  it('a reward range leaves out rollouts outside it and rollouts without a reward', () => {
    expect(sessionsOf(exportAll({ filters: { rewardMax: 0.25, status: ['completed', 'failed'] } }).items)).toEqual([ids.a[1], ids.single]);
    expect(sessionsOf(exportAll({ filters: { rewardMin: 0.25, rewardMax: 0.5 } }).items)).toEqual([...ids.b, ids.single]);
  });

  it('groupIds exports those groups only, in the order given', () => {
    const { items } = exportAll({ groupIds: ['task-b', 'task-a', 'no-such-group'] });
    expect(items.map((item) => item.groupKey)).toEqual(['task-b', 'task-b', 'task-a', 'task-a', 'task-a', 'task-a']);
    expect(items.map((item) => item.groupIndex)).toEqual([0, 0, 1, 1, 1, 1]);
  });
});

describe('exportSamples sample-level filters', () => {
  it('minLength drops shorter samples as too_short', () => {
    const lengths = exportAll().items.map((item) => item.sample.tokens.length);
    const longest = Math.max(...lengths);
    const { items, summary } = exportAll({ filters: { minLength: longest } });
    expect(items.every((item) => item.sample.tokens.length === longest)).toBe(true);
    expect(summary.dropped.too_short).toBe(lengths.filter((length) => length < longest).length);
  });

  it('maxStaleness 0 keeps only samples of the newest policy version; 1 keeps both', () => {
    const fresh = exportAll({ filters: { maxStaleness: 0 } });
    expect(sessionsOf(fresh.items)).toEqual([...ids.b, ids.single]);
    expect(fresh.items.every((item) => item.policyVersions.join() === 'v2')).toBe(true);
    expect(fresh.summary.dropped).toEqual({ stale_policy: 4, status_failed: 1 });
    expect(exportAll({ filters: { maxStaleness: 1 } }).items).toHaveLength(7);
  });

  it('policyVersions keeps samples trained only under the listed versions', () => {
    const { items, summary } = exportAll({ filters: { policyVersions: ['v1'] } });
    expect(new Set(sessionsOf(items))).toEqual(new Set(ids.a));
    expect(summary.dropped).toEqual({ stale_policy: 3, status_failed: 1 });
  });

  it('faithfulOnly keeps the recorded samples (all faithful here)', () => {
    const { items, summary } = exportAll({ filters: { faithfulOnly: true } });
    expect(items).toHaveLength(7);
    expect(summary.dropped.not_faithful).toBeUndefined();
  });

  it("a format's needs drop samples without a reward or an advantage", () => {
    const needs = (reward: boolean, advantage: boolean) => ({ needs: { reward, advantage, conversation: false } });
    const withFailed = { status: ['completed' as const, 'failed' as const] };
    expect(exportAll({ filters: withFailed, adapter: needs(true, false) }).summary.dropped).toEqual({ no_reward: 1 });
    const none = exportAll({ advantage: { estimator: 'none' }, adapter: needs(false, true) });
    expect(none.items).toHaveLength(0);
    expect(none.summary.dropped).toEqual({ no_advantage: 7, status_failed: 1 });
    expect(none.summary.groups).toBe(0);
  });

  it('conversations come from the last call of each sample; none drops the sample as no_conversation', () => {
    const adapter = { needs: { reward: false, advantage: false, conversation: true } };
    // refused when called, before any sample is asked for
    expect(() => exportSamples(store, { adapter })).toThrow(expect.objectContaining({ code: 'TT_INVALID_ARGUMENT' }));
    const seen: unknown[] = [];
    const { items } = exportAll({
      adapter,
      readConversation: (bodies) => {
        seen.push(bodies.requestBody);
        return { messages: [{ role: 'user', content: `call ${seen.length}` }], tools: [], templateOptions: {} };
      },
    });
    expect(items.map((item) => store.getCallBodies(item.sample.callIds.at(-1)!)!.requestBody)).toEqual(seen);
    expect(items.map((item) => item.conversation?.messages[0]?.content)).toEqual(items.map((_, index) => `call ${index + 1}`));
    const dropped = exportAll({ adapter, readConversation: () => null });
    expect(dropped.items).toHaveLength(0);
    expect(dropped.summary.dropped).toEqual({ no_conversation: 7, status_failed: 1 });
  });
});
