import type { DriftDiagnostic, DriftKind } from './sample.js';

/** Every drift kind, in the order reports list them. */
export const DRIFT_KINDS: readonly DriftKind[] = ['template-rerender', 'retokenized', 'history-edited', 'parallel-branch', 'truncated-completion'];

/**
 * Breaks per kind, every kind present (0 when none).
 *
 * @example
 * countDrift(report.drift); // { 'template-rerender': 19, retokenized: 0, 'history-edited': 1, ... }
 */
export function countDrift(drift: readonly DriftDiagnostic[]): Record<DriftKind, number> {
  const counts = Object.fromEntries(DRIFT_KINDS.map((kind) => [kind, 0])) as Record<DriftKind, number>;
  for (const diagnostic of drift) counts[diagnostic.kind] += 1;
  return counts;
}
