import { reconstructSessionReport, type ReconstructStrategy, type Sample, type SampleStatus } from '../reconstruct/index.js';
import type { CallBodies, RolloutRow, Store } from '../store/index.js';
import type { Conversation } from '../trainer-adapters/export-sample.js';
import { computeAdvantages, isZeroVariance } from './compute-advantages.js';
import type { AdvantageOptions, ExportFilters, ExportSummary, RewardOverride } from './export-options.js';
import { countReason, countReconstruction } from './export-summary.js';
import type { SampleFilter } from './create-sample-filter.js';
import type { ExportUnit } from './export-unit-shape.js';
import { selectRollouts } from './select-rollouts.js';

/** What exporting one unit reads: rewards, calls, bodies (chain breaks, conversations) and rollout fields. */
export type ExportUnitSource = Pick<Store, 'listRewards' | 'listCalls' | 'getCallBodies' | 'getRollout'>;

/** A sample the export keeps (weighed by reconstruction over the kept samples of its rollout), with its conversation when the format needs it. */
export interface KeptSample {
  sample: Sample;
  conversation?: Conversation;
}

/** A rollout with at least one kept sample, in chain order. */
export interface ExportedRollout {
  rollout: RolloutRow;
  advantage: number | null;
  samples: KeptSample[];
}

export interface ExportUnitOptions {
  strategy: ReconstructStrategy;
  filters: ExportFilters;
  advantage: AdvantageOptions;
  sampleFilter: SampleFilter;
  /** the kept statuses whose samples count in the loss weights (exportWeighedStatuses) */
  weighedStatuses: readonly SampleStatus[];
  /** set when the format needs conversations: a sample whose last call yields none is dropped (`no_conversation`) */
  readConversation?: (bodies: CallBodies) => Conversation | null;
  /** drops and reconstruction counts go here */
  summary: ExportSummary;
  /** session rewards given for this export only, in place of the stored ones */
  rewardOverrides?: ReadonlyMap<string, RewardOverride>;
}

/**
 * The statuses an export weighs: those it keeps (`filters.status`, default completed and truncated), less `failed`
 * and `aborted`, whose samples are exported to be seen with weight 0 when `filters.status` asks for them.
 *
 * @example exportWeighedStatuses(['completed', 'failed']); // ['completed']
 */
export function exportWeighedStatuses(kept: readonly SampleStatus[]): SampleStatus[] {
  return kept.filter((status) => status !== 'failed' && status !== 'aborted');
}

/**
 * One unit through the export pipeline (docs/export.md): rollout-level filters, advantages over the rewarded
 * rollouts that passed them, then reconstruction with the sample-level filters handed to it, so reconstruction
 * weighs (once) only the samples kept. Returns the rollouts with something to export, in unit order; one unit is
 * all the export holds in memory. The samples are reconstruction's, unchanged.
 *
 * @example
 * const rollouts = exportUnit(store, unit, { strategy: 'merge', filters: {}, advantage: {}, sampleFilter: createSampleFilter(), weighedStatuses: ['completed', 'truncated'], summary });
 */
export function exportUnit(store: ExportUnitSource, unit: ExportUnit, options: ExportUnitOptions): ExportedRollout[] {
  const selected = selectRollouts(store, unit, options.filters, options.summary.dropped, options.rewardOverrides);
  const rewards = selected.map((rollout) => rollout.reward);
  const advantages = computeAdvantages(rewards, options.advantage);
  // reported whether or not it is dropped: such a group trains on nothing (advantage 0), and the summary points to --drop-zero-variance
  const noSpread = isZeroVariance(rewards);
  if (noSpread) options.summary.zeroVarianceGroups += 1;
  const zeroVariance = options.advantage.dropZeroVarianceGroups === true && noSpread;
  const exported: ExportedRollout[] = [];
  for (const [position, { rollout, rewards: rewardRows }] of selected.entries()) {
    const advantage = advantages[position] ?? null;
    const conversations = new Map<Readonly<Sample>, Conversation>();
    const keepSample = (sample: Readonly<Sample>): boolean => {
      const reason = zeroVariance ? 'zero_variance_group' : dropReason(store, sample, advantage, options, conversations);
      if (reason === null) return true;
      countReason(options.summary.dropped, reason);
      return false;
    };
    const report = reconstructSessionReport(store, rollout.id, {
      strategy: options.strategy,
      rollout: { rollout, rewards: rewardRows },
      keepSample,
      weighedStatuses: options.weighedStatuses,
    });
    countReconstruction(options.summary, report);
    if ((report.driftCounts['template-rerender'] ?? 0) > 0) options.summary.templateRerenderRollouts += 1;
    if (report.samples.length === 0) continue;
    const samples = report.samples.map((sample): KeptSample => {
      const conversation = conversations.get(sample);
      return conversation === undefined ? { sample } : { sample, conversation };
    });
    exported.push({ rollout, advantage, samples });
  }
  return exported;
}

/** Why the sample is dropped, or null to keep it (its conversation, when the format needs one, goes to `conversations`). */
function dropReason(
  store: ExportUnitSource,
  sample: Readonly<Sample>,
  advantage: number | null,
  options: ExportUnitOptions,
  conversations: Map<Readonly<Sample>, Conversation>,
): string | null {
  const reason = options.sampleFilter(sample, advantage);
  if (reason !== null || options.readConversation === undefined) return reason;
  const bodies = store.getCallBodies(sample.callIds.at(-1) as string);
  const conversation = bodies === null ? null : options.readConversation(bodies);
  if (conversation === null) return 'no_conversation';
  conversations.set(sample, conversation);
  return null;
}
