import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExportSummary, exportRows, exportSamples, type ExportSource } from '../../export/index.js';
import type { Sample } from '../../reconstruct/index.js';
import { openStore, type Store } from '../../store/index.js';
import { createTrainerAdapter, type TrainerAdapter } from '../../trainer-adapters/index.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

// Every sample leaves reconstruction frozen: the export must hand reconstruct's Sample on unchanged (in strict-mode
// ESM, an assignment to a frozen sample throws), its weights already over the kept samples.
vi.mock('../../reconstruct/reconstruct-session.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../reconstruct/reconstruct-session.js')>();
  const freeze = (sample: Sample): Sample => {
    for (const part of [sample.callIds, sample.policyVersions, sample.diagnostics, sample.callRewards, sample.rewardComponents])
      if (part !== undefined) Object.freeze(part);
    return Object.freeze(sample);
  };
  return {
    ...original,
    reconstructSessionReport: (...args: Parameters<typeof original.reconstructSessionReport>) => {
      const report = original.reconstructSessionReport(...args);
      return { ...report, samples: report.samples.map(freeze) };
    },
  };
});

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

describe('one export pass', () => {
  it('hands out the samples reconstruction made, frozen, weighed 1/k over the kept samples of each rollout', () => {
    const items = [...exportSamples(store, {})];
    expect(items.every((item) => Object.isFrozen(item.sample))).toBe(true);
    expect(items.map((item) => [item.lossWeight, item.sample.lossWeight])).toEqual([
      [1, 1],
      [1, 1],
      [0.5, 0.5],
      [0.5, 0.5],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    const split = fixture.rollouts.find((rollout) => rollout.mergedSamples === 2)!.sessionId;
    const shorter = Math.min(...items.filter((item) => item.sample.sessionId === split).map((item) => item.sample.tokens.length));
    const kept = [...exportSamples(store, { filters: { maxLength: shorter } })].filter((item) => item.sample.sessionId === split);
    expect(kept.map((item) => [item.sample.tokens.length, item.lossWeight, item.sample.lossWeight])).toEqual([[shorter, 1, 1]]);
  });

  it('writes every format from frozen samples', () => {
    for (const format of ['jsonl', 'verl', 'slime', 'openrlhf', 'trl-grpo', 'tinker', 'skyrl', 'trl-sft', 'sft-messages', 'sharegpt']) {
      const adapter = createTrainerAdapter(format);
      const summary = createExportSummary();
      const rows = [...exportRows(store, adapter, { advantage: { estimator: 'grpo' }, summary })];
      expect(rows.length, format).toBe(summary.samples);
      expect(rows.length, format).toBeGreaterThan(0);
    }
  });

  it('reads the rewards of each rollout once', () => {
    const reads = new Map<string, number>();
    const count = (sessionId: string): void => void reads.set(sessionId, (reads.get(sessionId) ?? 0) + 1);
    // one by one, or with their calls several sessions at a time (read-ahead-units.ts)
    const counting: ExportSource = Object.create(store, {
      listRewards: {
        value: (sessionId: string) => {
          count(sessionId);
          return store.listRewards(sessionId);
        },
      },
      listCallsAndRewards: {
        value: (sessionIds: readonly string[]) => {
          sessionIds.forEach(count);
          return store.listCallsAndRewards(sessionIds);
        },
      },
    }) as ExportSource;
    const items = [...exportRows(counting, createTrainerAdapter('verl'), {})];
    expect(items.length).toBe(7);
    expect(new Set(reads.keys())).toEqual(new Set(fixture.rollouts.map((rollout) => rollout.sessionId)));
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
  });

  it('counts a sample once its row is made and an adapter skip as a drop only', () => {
    const verl = createTrainerAdapter('verl');
    let seen = 0;
    const everyOther: TrainerAdapter = { ...verl, toRow: (item) => (seen++ % 2 === 1 ? { skip: 'odd_one_out' } : verl.toRow(item)) };
    const summary = createExportSummary();
    const rows = [...exportRows(store, everyOther, { summary })];
    const all = createExportSummary();
    const items = [...exportSamples(store, { adapter: verl, summary: all })];
    const written = items.filter((_, index) => index % 2 === 0);
    expect(rows.map((row) => row.session_id)).toEqual(written.map((item) => item.sample.sessionId));
    expect(summary.samples).toBe(rows.length);
    expect(summary.tokens).toBe(written.reduce((total, item) => total + item.sample.tokens.length, 0));
    expect(summary.trainedTokens).toBe(written.reduce((total, item) => total + item.sample.lossMask.reduce((sum, bit) => sum + bit, 0), 0));
    expect(summary.dropped).toEqual({ ...all.dropped, odd_one_out: items.length - written.length });
    expect([summary.sessions, summary.groups]).toEqual([all.sessions, all.groups]);
  });
});
