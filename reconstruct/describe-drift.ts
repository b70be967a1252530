import type { DriftEvidence, DriftVerdict } from './classify-drift.js';
import type { DriftDiagnostic } from './sample.js';

/** Ids shown on each side of a divergence. */
export const DRIFT_EXCERPT_IDS = 16;

/**
 * The diagnostic for one break: where the new prompt left the earlier call's ids, and the first
 * DRIFT_EXCERPT_IDS ids of each side from that position (decoded when a tokenizer is at hand).
 *
 * @example
 * describeDrift(evidence, classifyDrift(evidence));
 * // { kind: 'template-rerender', position: 812, expected: { tokenIds: [151667, ...], text: '<think>\n...' }, ... }
 */
export function describeDrift(evidence: DriftEvidence, verdict: DriftVerdict): DriftDiagnostic {
  const { opened, against, position, tokenizer } = evidence;
  const expectedIds = against === null ? [] : excerpt(against.prompt, against.completion, position);
  const actualIds = Array.from(opened.prompt.subarray(position, position + DRIFT_EXCERPT_IDS));
  const expected: DriftDiagnostic['expected'] = { tokenIds: expectedIds };
  const actual: DriftDiagnostic['actual'] = { tokenIds: actualIds };
  if (tokenizer !== undefined) {
    // some tokenizers refuse an empty list
    expected.text = expectedIds.length === 0 ? '' : tokenizer.decode(expectedIds);
    actual.text = actualIds.length === 0 ? '' : tokenizer.decode(actualIds);
  }
  const where = against === null ? 'shares nothing with earlier calls' : `leaves call #${against.call.seq} at token ${position}`;
  return {
    kind: verdict.kind,
    callId: opened.call.id,
    againstCallId: against?.call.id ?? null,
    position,
    expected,
    actual,
    summary: `${verdict.kind}: call #${opened.call.seq} ${where}: ${verdict.reason}`,
  };
}

function excerpt(prompt: Int32Array, completion: Int32Array | null, position: number): number[] {
  const ids: number[] = [];
  for (let index = position; index < position + DRIFT_EXCERPT_IDS; index++) {
    const id = index < prompt.length ? prompt[index] : completion?.[index - prompt.length];
    if (id === undefined) break;
    ids.push(id);
  }
  return ids;
}
