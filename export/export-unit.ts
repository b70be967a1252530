import { reconstructSessionReport, type ReconstructStrategy, type Sample } from '../reconstruct/index.js';
import type { CallBodies, RolloutRow, Store } from '../store/index.js';
import type { Conversation } from '../trainer-adapters/export-sample.js';
import { computeAdvantages, isZeroVariance } from './compute-advantages.js';
import type { AdvantageOptions, ExportFilters, ExportSummary } from './export-options.js';
import { countReason, countReconstruction } from './export-summary.js';
import type { SampleFilter } from './create-sample-filter.js';
import type { ExportUnit } from './select-export-units.js';
import { selectRollouts } from './select-rollouts.js';

/** What exporting one unit reads: rewards, calls, bodies (chain breaks, conversations) and rollout fields. */
export type ExportUnitSource = Pick<Store, 'listRewards' | 'listCalls' | 'getCallBodies' | 'getRollout'>;

/** A sample the export keeps, with its loss weight and (when the format needs it) its conversation. */
export interface KeptSample {
  sample: Sample;
  lossWeight: number;
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
  /** set when the format needs conversations: a sample whose last call yields none is dropped (`no_conversation`) */
  readConversation?: (bodies: CallBodies) => Conversation | null;
  /** drops and reconstruction counts go here */
  summary: ExportSummary;
}

/**
 * One unit through the export pipeline (docs/export.md): rollout-level filters, advantages over the rewarded
 * rollouts that passed them, reconstruction, sample-level filters, then loss weights over what is kept. Returns the
 * rollouts with something to export, in unit order; one unit is all the export holds in memory.
 *
 * @example
 * const rollouts = exportUnit(store, unit, { strategy: 'merge', filters: {}, advantage: {}, sampleFilter: createSampleFilter(), summary });
 */
export function exportUnit(store: ExportUnitSource, unit: ExportUnit, options: ExportUnitOptions): ExportedRollout[] {
  const selected = selectRollouts(store, unit, options.filters, options.summary.dropped);
  const rewards = selected.map((rollout) => rollout.reward);
  const advantages = computeAdvantages(rewards, options.advantage);
  const zeroVariance = options.advantage.dropZeroVarianceGroups === true && isZeroVariance(rewards);
  const exported: ExportedRollout[] = [];
  for (const [position, { rollout }] of selected.entries()) {
    const advantage = advantages[position] ?? null;
    const report = reconstructSessionReport(store, rollout.id, { strategy: options.strategy });
    countReconstruction(options.summary, report);
    const samples: KeptSample[] = [];
    for (const sample of report.samples) {
      const kept = zeroVariance ? 'zero_variance_group' : keepSample(store, sample, advantage, options);
      if (typeof kept === 'string') countReason(options.summary.dropped, kept);
      else samples.push(kept);
    }
    if (samples.length === 0) continue;
    assignExportWeights(samples);
    exported.push({ rollout, advantage, samples });
  }
  return exported;
}

/** The kept sample, or the reason it is dropped. */
function keepSample(store: ExportUnitSource, sample: Sample, advantage: number | null, options: ExportUnitOptions): KeptSample | string {
  const reason = options.sampleFilter(sample, advantage);
  if (reason !== null) return reason;
  if (options.readConversation === undefined) return { sample, lossWeight: 0 };
  const bodies = store.getCallBodies(sample.callIds.at(-1) as string);
  const conversation = bodies === null ? null : options.readConversation(bodies);
  return conversation === null ? 'no_conversation' : { sample, lossWeight: 0, conversation };
}

/**
 * 1/k over the k kept samples of one rollout that can be trained, so a rollout split into k samples counts once;
 * samples of failed or aborted runs (kept only when `filters.status` asks for them) get 0, as reconstruct's
 * assignLossWeights gives them. Written to the sample too: reconstruction weighed it before the drops.
 */
function assignExportWeights(samples: KeptSample[]): void {
  const trainable = samples.filter(({ sample }) => sample.status !== 'failed' && sample.status !== 'aborted');
  for (const kept of samples) {
    kept.lossWeight = trainable.includes(kept) ? 1 / trainable.length : 0;
    kept.sample.lossWeight = kept.lossWeight;
  }
}
