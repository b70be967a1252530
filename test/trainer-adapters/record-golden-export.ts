import { exportSamples } from '../../export/export-samples.js';
import { openStore, type Store } from '../../store/index.js';
import type { ExportRow, ExportSample, TrainerAdapter } from '../../trainer-adapters/index.js';
import { isAdapterSkip } from '../../trainer-adapters/index.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

/** The recorded fixture (test/helpers/record-export-fixture.ts) opened read-only, with its hand-computed advantages. */
export interface GoldenExport {
  fixture: ExportFixture;
  store: Store;
  /** GRPO advantage per session id, computed here by hand (null for the unrewarded rollout) */
  advantages: Map<string, number | null>;
  close(): void;
}

/** One exported sample with the row the adapter made of it. */
export interface GoldenRow {
  item: ExportSample;
  row: ExportRow;
}

export async function recordGoldenExport(): Promise<GoldenExport> {
  const fixture = await recordExportFixture();
  const store = openStore({ path: fixture.dbPath, readonly: true });
  return {
    fixture,
    store,
    advantages: handAdvantages(fixture),
    close: () => {
      store.close();
      fixture.remove();
    },
  };
}

/**
 * The export pipeline's samples for an adapter (merge strategy, GRPO), failed rollouts included when asked, each
 * with its row; throws on a skip, which the fixture's exported samples never deserve.
 */
export function exportRows(golden: GoldenExport, adapter: TrainerAdapter, options: { includeFailed?: boolean } = {}): GoldenRow[] {
  const filters = options.includeFailed === true ? { status: ['completed' as const, 'truncated' as const, 'failed' as const] } : {};
  return [...exportSamples(golden.store, { strategy: 'merge', advantage: { estimator: 'grpo' }, filters, adapter })].map((item) => {
    const row = adapter.toRow(item);
    if (isAdapterSkip(row)) throw new Error(`${adapter.format} skipped ${item.sample.sessionId}: ${row.skip}`);
    return { item, row };
  });
}

/**
 * GRPO by hand: (r - mean) / (std + 1e-6) with Bessel's std over the group's rewards; a group of one (the
 * ungrouped rollout) gets 0, the export's documented choice; no reward, no advantage.
 */
function handAdvantages(fixture: ExportFixture): Map<string, number | null> {
  const advantages = new Map<string, number | null>();
  const groups = new Map<string, ExportFixture['rollouts']>();
  for (const rollout of fixture.rollouts) {
    const key = rollout.groupId ?? rollout.sessionId;
    groups.set(key, [...(groups.get(key) ?? []), rollout]);
  }
  for (const rollouts of groups.values()) {
    const rewards = rollouts.flatMap((rollout) => (rollout.reward === null ? [] : [rollout.reward]));
    const mean = rewards.reduce((total, reward) => total + reward, 0) / rewards.length;
    const std = Math.sqrt(rewards.reduce((total, reward) => total + (reward - mean) ** 2, 0) / (rewards.length - 1));
    for (const rollout of rollouts) {
      if (rollout.reward === null) advantages.set(rollout.sessionId, null);
      else advantages.set(rollout.sessionId, rewards.length < 2 ? 0 : (rollout.reward - mean) / (std + 1e-6));
    }
  }
  return advantages;
}
