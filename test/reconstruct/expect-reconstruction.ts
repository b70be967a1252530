import { expect } from 'vitest';
import type { CallRow, Store } from '../../store/index.js';
import { reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import type { DriftTokenizer, SessionReconstruction } from '../../reconstruct/reconstruct-options.js';
import type { Sample } from '../../reconstruct/sample.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import type { Expectation, RecordedSession } from './record-planned-session.js';

/**
 * Everything a session's reconstruction must satisfy, checked from the raw rows and the recorder's own account:
 * the verifier holds for every sample of both strategies; every trustworthy call is trained exactly once (aborted
 * calls in samples of their own, weight 0; flagged calls skipped); each rollout's weights sum to 1; per-call and
 * merge agree on every sampled token (id, logprob, context); and merge joins or breaks exactly where the recorder
 * says, with the drift kind it injected.
 */
export function expectSoundReconstruction(
  store: Store,
  sessionId: string,
  recorded: RecordedSession,
  tokenizer?: DriftTokenizer,
): SessionReconstruction {
  const calls = store.listCalls(sessionId);
  const merged = reconstructSessionReport(store, sessionId, { strategy: 'merge', ...(tokenizer === undefined ? {} : { tokenizer }) });
  const perCall = reconstructSessionReport(store, sessionId, { strategy: 'per-call' });
  for (const report of [merged, perCall]) {
    for (const sample of report.samples) expect(verifySample(sample, calls), `${report.strategy} sample ${sample.chainIndex}`).toEqual({ ok: true });
    expectEachCallOnce(report, calls, recorded);
  }
  expectSameSampledTokens(merged.samples, perCall.samples, recorded.trainable);
  for (const expectation of recorded.expectations) expectMergeOutcome(merged.samples, expectation);
  expect(merged.drift).toEqual(merged.samples.flatMap((sample) => sample.diagnostics));
  return merged;
}

function expectEachCallOnce(report: SessionReconstruction, calls: readonly CallRow[], recorded: RecordedSession): void {
  const trained = new Map<string, number>();
  for (const sample of report.samples) for (const callId of sample.callIds) trained.set(callId, (trained.get(callId) ?? 0) + 1);
  for (const callId of recorded.trainable) expect(trained.get(callId), `call ${callId} trained once (${report.strategy})`).toBe(1);
  for (const callId of recorded.aborted) {
    const own = report.samples.find((sample) => sample.callIds.includes(callId));
    expect(own).toMatchObject({ callIds: [callId], status: 'aborted', lossWeight: 0 });
  }
  expect(report.skipped.map((skipped) => skipped.callId).sort()).toEqual([...recorded.flagged].sort());
  expect(trained.size + report.skipped.length).toBe(calls.length);
  const weights = report.samples.reduce((total, sample) => total + sample.lossWeight, 0);
  expect(weights).toBeCloseTo(1, 9);
}

/** Each trainable call's sampled tokens: the same ids, logprobs and preceding context in both strategies. */
function expectSameSampledTokens(merged: readonly Sample[], perCall: readonly Sample[], trainable: readonly string[]): void {
  for (const callId of trainable) {
    const single = perCall.find((sample) => sample.callIds[0] === callId) as Sample;
    const within = merged.find((sample) => sample.callIds.includes(callId)) as Sample;
    const end = single.tokens.length;
    expect(
      Buffer.from(within.tokens.buffer, within.tokens.byteOffset, end * 4).equals(
        Buffer.from(single.tokens.buffer, single.tokens.byteOffset, end * 4),
      ),
      `context of ${callId}`,
    ).toBe(true);
    const from = single.promptLength;
    expect(Array.from(within.lossMask.subarray(from, end))).toEqual(Array.from(single.lossMask.subarray(from, end)));
    expect(Array.from(within.logprobs.subarray(from, end))).toEqual(Array.from(single.logprobs.subarray(from, end)));
    expect(within.policyVersions.slice(from, end)).toEqual(single.policyVersions.slice(from, end));
  }
}

function expectMergeOutcome(samples: readonly Sample[], expectation: Expectation): void {
  const sample = samples.find((candidate) => candidate.callIds.includes(expectation.callId)) as Sample;
  const position = sample.callIds.indexOf(expectation.callId);
  const label = `call ${expectation.callId}: ${JSON.stringify(expectation)} got ${JSON.stringify(sample.diagnostics.map((diagnostic) => diagnostic.summary))} at ${position}`;
  if (expectation.outcome === 'join') {
    expect(sample.callIds[position - 1], label).toBe(expectation.previousCallId);
    return;
  }
  expect(position, label).toBe(0);
  if (expectation.outcome === 'first') {
    expect(sample.diagnostics, label).toEqual([]);
    return;
  }
  const [diagnostic] = sample.diagnostics;
  expect(sample.diagnostics, label).toHaveLength(1);
  expect(expectation.kinds, label).toContain(diagnostic?.kind);
  if (expectation.againstCallId !== undefined) expect(diagnostic?.againstCallId, label).toBe(expectation.againstCallId);
  if (expectation.position !== undefined) expect(diagnostic?.position, label).toBe(expectation.position);
}
