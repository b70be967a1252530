import type { SampleStatus } from '../reconstruct/index.js';
import { sampleStandardDeviation } from './compute-advantages.js';
import type { ExportSummary } from './export-options.js';
import { exportSamples, type ExportSamplesOptions, type ExportSource } from './export-samples.js';
import { countTrained, createExportSummary } from './export-summary.js';

/** Values counted in [from, to) (the last bin of a reward histogram includes its `to`). */
export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

/** The spread of a number over the exported rollouts; std with Bessel's correction (0 for one value). */
export interface Distribution {
  count: number;
  min: number;
  mean: number;
  max: number;
  std: number;
  histogram: HistogramBin[];
}

/** What `tokentap stats` prints: the export's counts plus how its samples and rollouts are spread. */
export interface DatasetStats {
  /** what the export would count (sessions, groups, samples, tokens, dropped, skipped calls, drift) */
  summary: ExportSummary;
  /** exported rollouts */
  rollouts: number;
  /** total tokens per sample, in powers-of-two bins ([0, 1), [1, 2), [2, 4), ...) */
  lengths: HistogramBin[];
  /** trained tokens (mask 1) per sample, same bins */
  trainedLengths: HistogramBin[];
  /** the rewards of exported rollouts that have one (null when none has) */
  rewards: Distribution | null;
  unrewardedRollouts: number;
  /** the advantages of exported rollouts that have one, under the selection's estimator */
  advantages: { count: number; min: number; mean: number; max: number } | null;
  /** exported samples per status */
  statuses: Partial<Record<SampleStatus, number>>;
  faithful: { faithful: number; notFaithful: number };
  /** exported samples with trained tokens of each policy version (a sample of two versions counts in both) */
  policyVersions: Record<string, number>;
  /** exported samples with trained tokens of unversioned calls */
  unversionedSamples: number;
  /** trained tokens (mask 1) of each policy version over the exported samples */
  policyVersionTokens: Record<string, number>;
  /** trained tokens of unversioned calls */
  unversionedTokens: number;
}

/** Bins of the reward histogram (fewer when the rewards take fewer distinct values). */
const REWARD_BINS = 10;

/**
 * Runs the export pipeline with the same selection (filters, strategy, advantages, groups) but no format (the
 * adapter and conversations are ignored) and gathers the numbers `tokentap stats` prints. Keeps one number per
 * exported rollout (its reward, for the histogram) besides fixed-size counters.
 *
 * @example
 * const stats = computeDatasetStats(store, { filters: { split: 'train' } });
 * console.log(formatDatasetStats(stats));
 */
export function computeDatasetStats(store: ExportSource, options: ExportSamplesOptions): DatasetStats {
  const { adapter: _adapter, readConversation: _readConversation, ...selection } = options;
  const summary = options.summary ?? createExportSummary();
  const lengths = new Map<number, number>();
  const trainedLengths = new Map<number, number>();
  const rewards: number[] = [];
  const advantages = { count: 0, min: Infinity, sum: 0, max: -Infinity };
  const stats = {
    statuses: {} as Partial<Record<SampleStatus, number>>,
    faithful: { faithful: 0, notFaithful: 0 },
    policyVersions: {} as Record<string, number>,
    policyVersionTokens: {} as Record<string, number>,
    unversionedTokens: 0,
  };
  let rollouts = 0;
  let unversionedSamples = 0;
  for (const item of exportSamples(store, { ...selection, summary })) {
    const { sample } = item;
    if (item.rolloutSampleIndex === 0) {
      rollouts += 1;
      if (sample.reward !== undefined) rewards.push(sample.reward);
      if (item.advantage !== null) addAdvantage(advantages, item.advantage);
    }
    const trained = countTrained(sample.lossMask);
    increment(lengths, powerOfTwoBin(sample.tokens.length));
    increment(trainedLengths, powerOfTwoBin(trained));
    stats.statuses[sample.status] = (stats.statuses[sample.status] ?? 0) + 1;
    if (sample.faithful) stats.faithful.faithful += 1;
    else stats.faithful.notFaithful += 1;
    for (const version of item.policyVersions) stats.policyVersions[version] = (stats.policyVersions[version] ?? 0) + 1;
    if (countVersionTokens(sample, stats) > 0) unversionedSamples += 1;
  }
  return {
    summary,
    rollouts,
    lengths: powerOfTwoHistogram(lengths),
    trainedLengths: powerOfTwoHistogram(trainedLengths),
    rewards: distribution(rewards),
    unrewardedRollouts: rollouts - rewards.length,
    advantages:
      advantages.count === 0 ? null : { count: advantages.count, min: advantages.min, mean: advantages.sum / advantages.count, max: advantages.max },
    ...stats,
    unversionedSamples,
  };
}

/** Adds the sample's trained tokens per policy version to the totals; answers its unversioned trained tokens. */
function countVersionTokens(
  sample: { lossMask: Uint8Array; policyVersions: ReadonlyArray<string | null> },
  totals: { policyVersionTokens: Record<string, number>; unversionedTokens: number },
): number {
  let unversioned = 0;
  for (let index = 0; index < sample.lossMask.length; index++) {
    if (sample.lossMask[index] !== 1) continue;
    const version = sample.policyVersions[index] ?? null;
    if (version === null) unversioned += 1;
    else totals.policyVersionTokens[version] = (totals.policyVersionTokens[version] ?? 0) + 1;
  }
  totals.unversionedTokens += unversioned;
  return unversioned;
}

function addAdvantage(running: { count: number; min: number; sum: number; max: number }, advantage: number): void {
  running.count += 1;
  running.sum += advantage;
  running.min = Math.min(running.min, advantage);
  running.max = Math.max(running.max, advantage);
}

function increment(counts: Map<number, number>, key: number): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** -1 for 0, else k with 2^k <= value < 2^(k+1). */
function powerOfTwoBin(value: number): number {
  return value === 0 ? -1 : Math.floor(Math.log2(value));
}

/** Every bin from the lowest to the highest one used, empty ones between included. */
function powerOfTwoHistogram(counts: Map<number, number>): HistogramBin[] {
  if (counts.size === 0) return [];
  const keys = [...counts.keys()];
  const bins: HistogramBin[] = [];
  const highest = keys.reduce((high, key) => Math.max(high, key), -1);
  for (let key = keys.reduce((low, key) => Math.min(low, key), highest); key <= highest; key++) {
    bins.push({ from: key === -1 ? 0 : 2 ** key, to: 2 ** (key + 1), count: counts.get(key) ?? 0 });
  }
  return bins;
}

function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const average = mean(values);
  const min = values.reduce((low, value) => Math.min(low, value), Infinity);
  const max = values.reduce((high, value) => Math.max(high, value), -Infinity);
  return { count: values.length, min, mean: average, max, std: sampleStandardDeviation(values, average), histogram: evenHistogram(values, min, max) };
}

/** REWARD_BINS equal bins over [min, max] (one bin when all values are equal); the last bin includes max. */
function evenHistogram(values: readonly number[], min: number, max: number): HistogramBin[] {
  const binCount = min === max ? 1 : Math.min(REWARD_BINS, new Set(values).size);
  const width = (max - min) / binCount;
  const bins = Array.from({ length: binCount }, (_, index) => ({
    from: min + index * width,
    to: index === binCount - 1 ? max : min + (index + 1) * width,
    count: 0,
  }));
  for (const value of values) {
    const index = width === 0 ? 0 : Math.min(binCount - 1, Math.floor((value - min) / width));
    (bins[index] as HistogramBin).count += 1;
  }
  return bins;
}

function mean(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0) / values.length;
}
