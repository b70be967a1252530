import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeDatasetStats, createExportSummary, exportSamples, formatDatasetStats } from '../../export/index.js';
import { verifySample } from '../../reconstruct/index.js';
import { openStore, type Store } from '../../store/index.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

let fixture: ExportFixture;
let store: Store;
beforeAll(async () => {
  fixture = await recordExportFixture();
  store = openStore({ path: fixture.dbPath, readonly: true });
});
afterAll(() => {
  store.close();
  fixture.remove();
});

/** The power-of-two bin a length falls in: [0, 1) for 0, else [2^k, 2^(k+1)). */
const binOf = (length: number): { from: number; to: number } => {
  if (length === 0) return { from: 0, to: 1 };
  const from = 2 ** Math.floor(Math.log2(length));
  return { from, to: from * 2 };
};

describe('computeDatasetStats on recorded rollouts', () => {
  it('counts what the export with the same selection counts', () => {
    const summary = createExportSummary();
    const items = [...exportSamples(store, { summary })];
    for (const item of items) expect(verifySample(item.sample, store.listCalls(item.sample.sessionId))).toEqual({ ok: true });
    const stats = computeDatasetStats(store, {});
    expect(stats.summary).toEqual(summary);
    expect(stats.rollouts).toBe(6);
    expect(stats.statuses).toEqual({ completed: 7 });
    expect(stats.faithful).toEqual({ faithful: 7, notFaithful: 0 });
    expect(stats.policyVersions).toEqual({ v1: 4, v2: 3 });
    expect(stats.unversionedSamples).toBe(0);
    // trained tokens per version, as the samples hold them
    const tokens: Record<string, number> = {};
    for (const { sample } of items)
      for (const [index, mask] of sample.lossMask.entries())
        if (mask === 1) tokens[sample.policyVersions[index]!] = (tokens[sample.policyVersions[index]!] ?? 0) + 1;
    expect(stats.policyVersionTokens).toEqual(tokens);
    expect(Object.keys(stats.policyVersionTokens).sort()).toEqual(['v1', 'v2']);
    expect(stats.unversionedTokens).toBe(0);
  });

  it('spreads sample lengths and trained lengths over power-of-two bins', () => {
    const items = [...exportSamples(store, {})];
    const stats = computeDatasetStats(store, {});
    for (const [bins, lengthOf] of [
      [stats.lengths, (index: number) => items[index]!.sample.tokens.length],
      [stats.trainedLengths, (index: number) => items[index]!.sample.lossMask.filter((value) => value === 1).length],
    ] as const) {
      expect(bins.reduce((total, bin) => total + bin.count, 0)).toBe(7);
      for (const [index] of items.entries()) {
        const { from, to } = binOf(lengthOf(index));
        expect(bins.find((bin) => bin.from === from && bin.to === to)?.count).toBeGreaterThan(0);
      }
      for (const [index, bin] of bins.entries()) if (index > 0) expect(bin.from).toBe(bins[index - 1]!.to);
    }
  });

  it('describes the rewards of exported rollouts (one per rollout) and their advantages', () => {
    const stats = computeDatasetStats(store, {});
    const rewards = [1, 0, 1, 0.5, 0.5, 0.25];
    const mean = 3.25 / 6;
    const std = Math.sqrt(rewards.reduce((total, reward) => total + (reward - mean) ** 2, 0) / 5);
    expect(stats.rewards).toMatchObject({ count: 6, min: 0, max: 1 });
    expect(stats.rewards!.mean).toBeCloseTo(mean, 12);
    expect(stats.rewards!.std).toBeCloseTo(std, 12);
    expect(stats.rewards!.histogram.reduce((total, bin) => total + bin.count, 0)).toBe(6);
    expect(stats.rewards!.histogram.at(-1)).toMatchObject({ to: 1, count: 2 });
    expect(stats.unrewardedRollouts).toBe(0);
    const grpo = (reward: number): number => (reward - 2 / 3) / (Math.sqrt(1 / 3) + 1e-6);
    expect(stats.advantages!.count).toBe(6);
    expect(stats.advantages!.min).toBeCloseTo(grpo(0), 12);
    expect(stats.advantages!.max).toBeCloseTo(grpo(1), 12);
    expect(stats.advantages!.mean).toBeCloseTo((grpo(1) * 2 + grpo(0)) / 6, 12);
  });

  it('follows the selection: the failed rollout counted as unrewarded, statuses and filters applied', () => {
    const stats = computeDatasetStats(store, { filters: { status: ['completed', 'failed'] } });
    expect(stats.rollouts).toBe(7);
    expect(stats.unrewardedRollouts).toBe(1);
    expect(stats.statuses).toEqual({ completed: 7, failed: 1 });
    expect(computeDatasetStats(store, { filters: { split: 'val' } }).rewards).toMatchObject({
      count: 1,
      min: 0.25,
      max: 0.25,
      std: 0,
      histogram: [{ from: 0.25, to: 0.25, count: 1 }],
    });
  });

  it('ignores a format: no conversation is read, no sample dropped for its needs', () => {
    const stats = computeDatasetStats(store, { adapter: { needs: { reward: true, advantage: true, conversation: true } } });
    expect(stats.summary.samples).toBe(7);
  });

  it('formats a compact table with the counts, drops and histograms', () => {
    const text = formatDatasetStats(computeDatasetStats(store, {}));
    expect(text).toContain('samples 7  rollouts 6  groups 3  sessions 6');
    expect(text).toContain('dropped: status_failed 1');
    expect(text).toContain('policy versions (samples): v1 4, v2 3');
    const { policyVersionTokens } = computeDatasetStats(store, {});
    expect(text).toContain(`policy versions (trained tokens): v1 ${policyVersionTokens.v1}, v2 ${policyVersionTokens.v2}\n`);
    expect(text).toMatch(/rewards \(6 rollouts, 0 without\): min 0 {2}mean 0\.5417 {2}max 1/);
    expect(text).toMatch(/tokens per sample:\n {2}128-255 +#+ +7\n/);
  });
});
