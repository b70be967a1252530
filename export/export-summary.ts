import type { Sample, SessionReconstruction } from '../reconstruct/index.js';
import type { ExportSummary } from './export-options.js';

/**
 * An empty summary for `exportSamples` to count into (docs/export.md, "Selection and filters").
 *
 * @example
 * const summary = createExportSummary();
 * for (const sample of exportSamples(store, { summary })) write(sample);
 * console.log(summary.samples, summary.dropped);
 */
export function createExportSummary(): ExportSummary {
  return {
    sessions: 0,
    groups: 0,
    samples: 0,
    tokens: 0,
    trainedTokens: 0,
    dropped: {},
    skippedCalls: {},
    drift: {},
    templateRerenderRollouts: 0,
    zeroVarianceGroups: 0,
    bytes: 0,
  };
}

/**
 * Adds `count` to one reason of a summary's counters (`dropped`, `skippedCalls` or `drift`).
 *
 * @example countReason(summary.dropped, 'too_long'); // summary.dropped.too_long === 1
 */
export function countReason(counters: Record<string, number>, reason: string, count = 1): void {
  if (count === 0) return;
  counters[reason] = (counters[reason] ?? 0) + count;
}

/**
 * Counts what one session's reconstruction left out (skipped calls by reason) and the chain breaks it met (drift
 * by kind, non-zero kinds only).
 *
 * @example countReconstruction(summary, reconstructSessionReport(store, 'r-1'));
 */
export function countReconstruction(summary: ExportSummary, report: SessionReconstruction): void {
  for (const skipped of report.skipped) countReason(summary.skippedCalls, skipped.reason);
  for (const [kind, count] of Object.entries(report.driftCounts)) countReason(summary.drift, kind, count);
}

/** @example countTrained(Uint8Array.of(0, 1, 1)) // 2 */
export function countTrained(mask: Uint8Array): number {
  let trained = 0;
  for (const value of mask) trained += value;
  return trained;
}

/**
 * Adds an exported sample to the totals (samples, tokens, trained tokens).
 *
 * @example countSample(summary, exported.sample);
 */
export function countSample(summary: ExportSummary, sample: Pick<Sample, 'tokens' | 'lossMask'>): void {
  summary.samples += 1;
  summary.tokens += sample.tokens.length;
  summary.trainedTokens += countTrained(sample.lossMask);
}
