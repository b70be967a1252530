import type { DatasetStats, HistogramBin } from './dataset-stats.js';
import type { ExportSummary } from './export-options.js';

/** Characters of the longest bar. */
const BAR_WIDTH = 30;

/**
 * `tokentap stats` as plain text: the counts, what was dropped and why, then the histograms with ASCII bars.
 *
 * @example
 * process.stdout.write(formatDatasetStats(computeDatasetStats(store, {})));
 * // samples 6  rollouts 5  groups 3  sessions 5  tokens 1520  trained 270
 * // ...
 */
export function formatDatasetStats(stats: DatasetStats): string {
  const { summary } = stats;
  const lines = [
    `samples ${summary.samples}  rollouts ${stats.rollouts}  groups ${summary.groups}  sessions ${summary.sessions}  tokens ${summary.tokens}  trained ${summary.trainedTokens}`,
    `dropped: ${formatCounts(summary.dropped)}`,
    `skipped calls: ${formatCounts(summary.skippedCalls)}`,
    `chain breaks: ${formatCounts(summary.drift)}`,
    formatZeroVarianceGroups(summary),
    `statuses: ${formatCounts(stats.statuses)}`,
    `faithful: ${stats.faithful.faithful}  not faithful: ${stats.faithful.notFaithful}`,
    `policy versions (samples): ${formatCounts(stats.policyVersions)}${stats.unversionedSamples > 0 ? `  unversioned ${stats.unversionedSamples}` : ''}`,
    `policy versions (trained tokens): ${formatCounts(stats.policyVersionTokens)}${stats.unversionedTokens > 0 ? `  unversioned ${stats.unversionedTokens}` : ''}`,
  ];
  if (stats.rewards === null) lines.push(`rewards: none (${stats.unrewardedRollouts} rollouts without)`);
  else {
    const { count, min, mean, max, std } = stats.rewards;
    lines.push(
      `rewards (${count} rollouts, ${stats.unrewardedRollouts} without): min ${number(min)}  mean ${number(mean)}  max ${number(max)}  std ${number(std)}`,
    );
    lines.push(...formatHistogram(stats.rewards.histogram, (bin, last) => `[${number(bin.from)}, ${number(bin.to)}${last ? ']' : ')'}`));
  }
  const advantages = stats.advantages;
  lines.push(
    advantages === null
      ? 'advantages: none'
      : `advantages (${advantages.count} rollouts): min ${number(advantages.min)}  mean ${number(advantages.mean)}  max ${number(advantages.max)}`,
  );
  lines.push('tokens per sample:', ...formatHistogram(stats.lengths, tokenRange));
  lines.push('trained tokens per sample:', ...formatHistogram(stats.trainedLengths, tokenRange));
  return lines.join('\n') + '\n';
}

function formatCounts(counts: Record<string, number | undefined>): string {
  const entries = Object.entries(counts).filter(([, count]) => count !== undefined && count > 0);
  return entries.length === 0 ? 'none' : entries.map(([name, count]) => `${name} ${count}`).join(', ');
}

function formatHistogram(bins: readonly HistogramBin[], label: (bin: HistogramBin, last: boolean) => string): string[] {
  const labels = bins.map((bin, index) => label(bin, index === bins.length - 1));
  const labelWidth = labels.reduce((width, text) => Math.max(width, text.length), 0);
  const highest = bins.reduce((high, bin) => Math.max(high, bin.count), 0);
  return bins.map((bin, index) => {
    const bar = '#'.repeat(highest === 0 ? 0 : Math.round((bin.count / highest) * BAR_WIDTH));
    return `  ${(labels[index] as string).padEnd(labelWidth)}  ${bar.padEnd(BAR_WIDTH)}  ${bin.count}`;
  });
}

/** Integer bins read better as inclusive ranges: [4, 8) -> 4-7. */
function tokenRange(bin: HistogramBin): string {
  return bin.to - bin.from <= 1 ? String(bin.from) : `${bin.from}-${bin.to - 1}`;
}

/** Four significant digits, no trailing zeros; rounding noise (a group's advantages summing to 1e-17) shows as 0. */
function number(value: number): string {
  return Math.abs(value) < 1e-12 ? '0' : String(Number(value.toPrecision(4)));
}

/**
 * The summary line of zero-variance groups (rewards all equal: advantage 0, nothing to learn), pointing to
 * `--drop-zero-variance` when they were exported.
 *
 * @example formatZeroVarianceGroups(summary); // 'zero-variance groups: 2 (all rewards equal, advantage 0: --drop-zero-variance leaves them out)'
 */
export function formatZeroVarianceGroups(summary: ExportSummary): string {
  const count = summary.zeroVarianceGroups;
  if (count === 0) return 'zero-variance groups: none';
  if ((summary.dropped.zero_variance_group ?? 0) > 0) return `zero-variance groups: ${count} (left out by --drop-zero-variance)`;
  return `zero-variance groups: ${count} (all rewards equal, advantage 0: --drop-zero-variance leaves them out)`;
}
