import type { DriftDiagnostic, Sample } from '../../reconstruct/sample.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import type { CallRow } from '../../store/index.js';
import type { BreakView, SampleSummary, StrategyName } from '../viewer-api.js';

/**
 * A sample as the session page lists it, with the verifier's verdict against the raw call rows
 * (reconstruct/verify-sample.ts) and its breaks.
 *
 * @example toSampleSummary(report.samples[0], 'merge', 0, store.listCalls(sessionId))
 */
export function toSampleSummary(sample: Sample, strategy: StrategyName, index: number, calls: readonly CallRow[]): SampleSummary {
  let trainedTokens = 0;
  for (const mask of sample.lossMask) trainedTokens += mask;
  return {
    strategy,
    index,
    chainIndex: sample.chainIndex,
    callIds: [...sample.callIds],
    tokens: sample.tokens.length,
    trainedTokens,
    promptLength: sample.promptLength,
    status: sample.status,
    faithful: sample.faithful,
    lossWeight: sample.lossWeight,
    reward: sample.reward ?? null,
    verdict: verifySample(sample, calls),
    breaks: sample.diagnostics.map(toBreakView),
  };
}

/**
 * A drift diagnostic as the pages show it. Its position is where the call's prompt left the chain, which is the same
 * index in the sample that the call's prompt opens (the sample starts with that prompt).
 */
export function toBreakView(diagnostic: DriftDiagnostic): BreakView {
  return {
    kind: diagnostic.kind,
    callId: diagnostic.callId,
    againstCallId: diagnostic.againstCallId,
    position: diagnostic.position,
    expected: { tokenIds: [...diagnostic.expected.tokenIds], text: diagnostic.expected.text ?? null },
    actual: { tokenIds: [...diagnostic.actual.tokenIds], text: diagnostic.actual.text ?? null },
    summary: diagnostic.summary,
  };
}
