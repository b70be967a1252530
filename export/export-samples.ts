import type { CallBodies, Store } from '../store/index.js';
import type { Conversation, ExportSample } from '../trainer-adapters/export-sample.js';
import type { TrainerAdapter } from '../trainer-adapters/trainer-adapter.js';
import { createSampleFilter, DEFAULT_EXPORT_STATUSES, trainedPolicyVersions } from './create-sample-filter.js';
import type { ExportSelection, ExportSummary } from './export-options.js';
import { countReason, countSample, createExportSummary } from './export-summary.js';
import { exportUnit, exportWeighedStatuses, type ExportedRollout, type ExportUnitOptions, type KeptSample } from './export-unit.js';
import { readAheadUnits, type ReadAheadSource } from './read-ahead-units.js';
import { selectExportUnits, type UnitSelectionSource } from './select-export-units.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

export { createExportSummary } from './export-summary.js';

/** Everything an export reads from a store (a Store, or a fake with these methods; the batched reads are optional). */
export type ExportSource = UnitSelectionSource & ReadAheadSource & Pick<Store, 'listPolicyVersions'>;

export interface ExportSamplesOptions extends ExportSelection {
  /** only these complete groups (the pull API), in this order; otherwise every unit that passes the rollout-level filters */
  groupIds?: string[];
  /** what the format needs: drops samples without reward / advantage (counted `no_reward` / `no_advantage`), reads conversations */
  adapter?: Pick<TrainerAdapter, 'needs'>;
  /** counters, mutated as samples stream (sessions, groups, samples, tokens, trainedTokens, dropped, skippedCalls, drift) */
  summary?: ExportSummary;
  /** told after each unit (group) with sessions done so far and the total when known, for a progress bar */
  onProgress?: (progress: { sessionsDone: number; sessionsTotal: number }) => void;
  /** reads the conversation for needs.conversation formats; injected so export/ stays free of body parsing */
  readConversation?: (bodies: CallBodies) => Conversation | null;
}

/**
 * Streams the samples of an export (docs/export.md, "Selection and filters", "Advantages and loss weights"): unit
 * by unit (a group, or a session in no group), oldest first; the samples of a unit together, rollouts in group
 * order, samples in chain order. Memory holds one unit's samples and a read-ahead of sessions' calls
 * (read-ahead-units.ts), whatever the store holds. Counts go to `options.summary`
 * as samples are handed out. Each `item.sample` is reconstruction's, weighed over the kept samples of its rollout.
 *
 * @example
 * const summary = createExportSummary();
 * for (const item of exportSamples(store, { filters: { split: 'train' }, advantage: { estimator: 'grpo' }, adapter, summary })) {
 *   writer.write(adapter.toRow(item));
 * }
 * console.log(summary.samples, summary.dropped); // 5 { status_failed: 1 }
 */
export function exportSamples(store: ExportSource, options: ExportSamplesOptions): Generator<ExportSample> {
  const summary = options.summary ?? createExportSummary();
  const samples = streamExportSamples(store, { ...options, summary });
  return countEach(samples, summary);
}

function* countEach(samples: Iterable<ExportSample>, summary: ExportSummary): Generator<ExportSample> {
  for (const item of samples) {
    countSample(summary, item.sample);
    yield item;
  }
}

/**
 * exportSamples without counting the samples themselves (groups, sessions, drops, skipped calls and drift are
 * counted): for exportRows, which counts a sample once its format holds it and an adapter's skip as a drop.
 * Options are checked when it is called, units are read as samples are asked for.
 *
 * @example const samples = streamExportSamples(store, { adapter, summary });
 */
export function streamExportSamples(store: ExportSource, options: ExportSamplesOptions & { summary: ExportSummary }): Generator<ExportSample> {
  const needs = options.adapter?.needs;
  if (needs?.conversation === true && options.readConversation === undefined) {
    throw new TokentapError('TT_INVALID_ARGUMENT', {
      message: 'this format needs conversations: pass `readConversation` (trainer-adapters/conversation/)',
    });
  }
  const filters = options.filters ?? {};
  const policyHistory = filters.maxStaleness === undefined ? [] : store.listPolicyVersions();
  const unitOptions: ExportUnitOptions = {
    strategy: options.strategy ?? 'merge',
    filters,
    advantage: options.advantage ?? {},
    sampleFilter: createSampleFilter({ filters, needs, policyHistory }),
    weighedStatuses: exportWeighedStatuses(filters.status ?? DEFAULT_EXPORT_STATUSES),
    summary: options.summary,
    ...(options.rewardOverrides === undefined ? {} : { rewardOverrides: options.rewardOverrides }),
    ...(needs?.conversation === true ? { readConversation: options.readConversation } : {}),
  };
  return streamUnits(store, options, unitOptions, options.summary);
}

/** The lazy part: units are read as samples are asked for. */
function* streamUnits(
  store: ExportSource,
  options: ExportSamplesOptions,
  unitOptions: ExportUnitOptions,
  summary: ExportSummary,
): Generator<ExportSample> {
  const { sessionsTotal, units, skipped } = selectExportUnits(store, { filters: unitOptions.filters, groupIds: options.groupIds });
  for (const [reason, count] of Object.entries(skipped)) countReason(summary.dropped, reason, count);
  const position = { index: 0, groupIndex: 0, rolloutIndex: 0 };
  let sessionsDone = 0;
  for (const { unit, source } of readAheadUnits(store, units)) {
    const rollouts = exportUnit(source, unit, unitOptions);
    if (rollouts.length > 0) {
      summary.groups += 1;
      yield* unitSamples(unit.key, rollouts, position, summary);
      position.groupIndex += 1;
    }
    sessionsDone += unit.rollouts.length;
    options.onProgress?.({ sessionsDone, sessionsTotal: Math.max(sessionsTotal, sessionsDone) });
  }
}

/** The kept samples of one unit, numbered; each rollout counted in `summary.sessions`. */
function* unitSamples(
  groupKey: string,
  rollouts: ExportedRollout[],
  position: { index: number; groupIndex: number; rolloutIndex: number },
  summary: ExportSummary,
): Generator<ExportSample> {
  for (const [repetitionIndex, rollout] of rollouts.entries()) {
    summary.sessions += 1;
    for (const [rolloutSampleIndex, kept] of rollout.samples.entries()) {
      const item = toExportSample(kept, rollout, groupKey, { ...position, repetitionIndex, rolloutSampleIndex });
      position.index += 1;
      yield item;
    }
    position.rolloutIndex += 1;
  }
}

function toExportSample(
  kept: KeptSample,
  rollout: ExportedRollout,
  groupKey: string,
  at: { index: number; groupIndex: number; rolloutIndex: number; repetitionIndex: number; rolloutSampleIndex: number },
): ExportSample {
  const versions = trainedPolicyVersions(kept.sample).filter((version): version is string => version !== null);
  return {
    sample: kept.sample,
    index: at.index,
    groupKey,
    groupIndex: at.groupIndex,
    rolloutIndex: at.rolloutIndex,
    repetitionIndex: at.repetitionIndex,
    rolloutSampleIndex: at.rolloutSampleIndex,
    rolloutSampleCount: rollout.samples.length,
    advantage: rollout.advantage,
    lossWeight: kept.sample.lossWeight,
    policyVersions: versions,
    ...(kept.conversation === undefined ? {} : { conversation: kept.conversation }),
  };
}
