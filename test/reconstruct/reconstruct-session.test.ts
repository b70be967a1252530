import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/index.js';
import { iterateSamples, iterateSessions } from '../../reconstruct/iterate-samples.js';
import { reconstructSession, reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import type { Sample } from '../../reconstruct/sample.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordRawCall } from './record-raw-call.js';

let temp: ReturnType<typeof makeTempDir>;
let store: Store;

beforeEach(() => {
  temp = makeTempDir('tokentap-reconstruct-');
  store = openStore({ path: temp.file('t.db') });
});

afterEach(() => {
  store.close();
  temp.remove();
});

function expectVerified(samples: Sample[]): void {
  for (const sample of samples) expect(verifySample(sample, store.listCalls(sample.sessionId))).toEqual({ ok: true });
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, index) => from + index);

describe('per-call', () => {
  it('makes one sample per call: prompt as context, completion trained, weights 1/k', () => {
    const first = recordRawCall(store, 's', { prompt: [1, 2, 3], completion: [4, 5], policyVersion: 'v7' });
    const second = recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6], completion: [7] });
    const samples = reconstructSession(store, 's', { strategy: 'per-call' });
    expect(samples.map((sample) => sample.callIds)).toEqual([[first], [second]]);
    expect(Array.from(samples[0]!.tokens)).toEqual([1, 2, 3, 4, 5]);
    expect(Array.from(samples[0]!.lossMask)).toEqual([0, 0, 0, 1, 1]);
    expect(samples[0]!.policyVersions).toEqual([null, null, null, 'v7', 'v7']);
    expect(samples.map((sample) => [sample.lossWeight, sample.chainIndex, sample.promptLength, sample.status, sample.faithful])).toEqual([
      [0.5, 0, 3, 'completed', true],
      [0.5, 1, 6, 'completed', true],
    ]);
    expectVerified(samples);
  });
});

describe('merge', () => {
  it('merges calls whose prompt extends the tip: new prompt tokens become context', () => {
    const calls = [
      recordRawCall(store, 's', { prompt: [1, 2], completion: [3, 4] }),
      recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6], completion: [7, 8] }),
      recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6, 7, 8, 9], completion: [10] }),
    ];
    const report = reconstructSessionReport(store, 's');
    expect(report.samples).toHaveLength(1);
    const [sample] = report.samples;
    expect(sample!.callIds).toEqual(calls);
    expect(Array.from(sample!.tokens)).toEqual(range(1, 11));
    expect(Array.from(sample!.lossMask)).toEqual([0, 0, 1, 1, 0, 0, 1, 1, 0, 1]);
    expect(sample!.lossWeight).toBe(1);
    expect(report.drift).toEqual([]);
    expectVerified(report.samples);
  });

  it('starts a chain for a call forking from the middle of another: inherited tokens are context, nothing trained twice', () => {
    const a = recordRawCall(store, 's', { prompt: [1, 2], completion: [3] });
    const b = recordRawCall(store, 's', { prompt: [1, 2, 3, 4], completion: [5] });
    const fork = recordRawCall(store, 's', { prompt: [1, 2, 3, 9], completion: [10] });
    // the first chain goes on after the fork: the fork went beside it (a branch), not instead of it (an edit)
    const c = recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6], completion: [7] });
    const report = reconstructSessionReport(store, 's');
    expect(report.samples.map((sample) => sample.callIds)).toEqual([[a, b, c], [fork]]);
    expect(Array.from(report.samples[1]!.lossMask)).toEqual([0, 0, 0, 0, 1]);
    expect(report.drift).toMatchObject([
      { kind: 'parallel-branch', callId: fork, againstCallId: b, position: 3, expected: { tokenIds: [4, 5] }, actual: { tokenIds: [9] } },
    ]);
    expect(report.samples[1]!.diagnostics).toEqual(report.drift);
    expect(report.samples.map((sample) => sample.lossWeight)).toEqual([0.5, 0.5]);
    expectVerified(report.samples);
  });

  it('joins the longest tip whose tokens prefix the prompt, the latest on a tie', () => {
    const short = recordRawCall(store, 's', { prompt: [1], completion: [2] });
    const twinA = recordRawCall(store, 's', { prompt: [5, 6], completion: [7] });
    const twinB = recordRawCall(store, 's', { prompt: [5, 6], completion: [7] });
    const next = recordRawCall(store, 's', { prompt: [5, 6, 7, 8], completion: [9] });
    const shortNext = recordRawCall(store, 's', { prompt: [1, 2, 3], completion: [4] });
    const samples = reconstructSession(store, 's');
    expect(samples.map((sample) => sample.callIds)).toEqual([[short, shortNext], [twinA], [twinB, next]]);
    expectVerified(samples);
  });

  it('splits a call that continues a flagged call, skips the flagged call and says why', () => {
    const first = recordRawCall(store, 's', { prompt: [1, 2], completion: [3] });
    const flagged = recordRawCall(store, 's', { prompt: [1, 2, 3, 4], completion: [5, 7], flags: ['completion_ids_mismatch_usage'] });
    const next = recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6, 7, 8], completion: [9] });
    const report = reconstructSessionReport(store, 's');
    expect(report.samples.map((sample) => sample.callIds)).toEqual([[first], [next]]);
    expect(report.skipped).toEqual([{ callId: flagged, seq: 2, status: 'ok', reason: expect.stringContaining('completion_ids_mismatch_usage') }]);
    expect(report.drift).toMatchObject([{ kind: 'truncated-completion', callId: next, againstCallId: flagged, position: 5 }]);
    expectVerified(report.samples);
  });

  it('gives failed calls their own samples with weight 0, and lets a retry join the chain', () => {
    const first = recordRawCall(store, 's', { prompt: [1, 2], completion: [3] });
    const aborted = recordRawCall(store, 's', { prompt: [1, 2, 3, 4], completion: [5], status: 'aborted', finishReason: null });
    const failed = recordRawCall(store, 's', { prompt: [1, 2, 3, 4], completion: null, status: 'backend_error', finishReason: null });
    const retry = recordRawCall(store, 's', { prompt: [1, 2, 3, 4], completion: [6, 7] });
    const report = reconstructSessionReport(store, 's');
    expect(report.samples.map((sample) => [sample.callIds, sample.status, sample.lossWeight])).toEqual([
      [[first, retry], 'completed', 1],
      [[aborted], 'aborted', 0],
    ]);
    expect(report.skipped).toMatchObject([{ callId: failed, status: 'backend_error', reason: 'the call failed (backend_error)' }]);
    expect(report.drift).toEqual([]);
    expectVerified(report.samples);
  });

  it('merges past a max-tokens call its successor extends; splits where it cannot', () => {
    const cut = recordRawCall(store, 's', { prompt: [1, 2], completion: [3, 4], finishReason: 'length' });
    const extended = recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5], completion: [6], finishReason: 'length' });
    const rewritten = recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 99, 8], completion: [7] });
    const report = reconstructSessionReport(store, 's');
    expect(report.samples.map((sample) => [sample.callIds, sample.status])).toEqual([
      [[cut, extended], 'truncated'],
      [[rewritten], 'completed'],
    ]);
    expect(report.drift).toMatchObject([{ kind: 'truncated-completion', callId: rewritten, againstCallId: extended, position: 5 }]);
    expectVerified(report.samples);
  });

  it('without chat bodies tells an abandoned prefix (history-edited) from an identical resend (parallel-branch)', () => {
    recordRawCall(store, 's', { prompt: [1, 2, 3], completion: [4] });
    const compacted = recordRawCall(store, 's', { prompt: [1, 2, 8], completion: [9] });
    const resend = recordRawCall(store, 's', { prompt: [1, 2, 8], completion: [10] });
    const report = reconstructSessionReport(store, 's');
    expect(report.drift.map((diagnostic) => [diagnostic.callId, diagnostic.kind])).toEqual([
      [compacted, 'history-edited'],
      [resend, 'parallel-branch'],
    ]);
    expect(report.driftCounts).toEqual({
      'template-rerender': 0,
      retokenized: 0,
      'history-edited': 1,
      'parallel-branch': 1,
      'truncated-completion': 0,
    });
  });
});

describe('the worked example of docs/reconstruct.md', () => {
  it('gives the samples, masks and drift the docs show', () => {
    const [first, second, fork, fourth] = [
      recordRawCall(store, 's', { prompt: [1, 2], completion: [3, 4] }),
      recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6], completion: [7, 8] }),
      recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 9], completion: [10] }),
      recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6, 7, 8, 11], completion: [12] }),
    ];
    const report = reconstructSessionReport(store, 's');
    expect(report.samples.map((sample) => [sample.callIds, Array.from(sample.tokens), Array.from(sample.lossMask)])).toEqual([
      [
        [first, second, fourth],
        [1, 2, 3, 4, 5, 6, 7, 8, 11, 12],
        [0, 0, 1, 1, 0, 0, 1, 1, 0, 1],
      ],
      [[fork], [1, 2, 3, 4, 9, 10], [0, 0, 0, 0, 0, 1]],
    ]);
    expect(report.drift).toMatchObject([{ kind: 'parallel-branch', callId: fork, againstCallId: second, position: 4 }]);
    expect(reconstructSession(store, 's', { strategy: 'per-call' })).toHaveLength(4);
    expectVerified(report.samples);
  });
});

describe('calls without backend ids', () => {
  it('are skipped with a reason, or retokenized into unfaithful per-call samples when a retokenizer is given', () => {
    const good = recordRawCall(store, 's', { prompt: [1, 2], completion: [3] });
    const plain = recordRawCall(store, 's', { prompt: null, completion: null, logprobs: null, tokenSource: 'none' });
    expect(reconstructSessionReport(store, 's').skipped).toMatchObject([{ callId: plain, reason: expect.stringContaining('tokenSource none') }]);
    const report = reconstructSessionReport(store, 's', {
      retokenizer: () => ({ promptTokenIds: Int32Array.of(1, 2, 3, 4), completionTokenIds: Int32Array.of(5, 6) }),
    });
    expect(report.skipped).toEqual([]);
    const retokenized = report.samples.find((sample) => sample.callIds[0] === plain)!;
    expect(retokenized.faithful).toBe(false);
    expect(Array.from(retokenized.logprobs.subarray(4)).every(Number.isNaN)).toBe(true);
    expect(report.samples.map((sample) => sample.lossWeight)).toEqual([0.5, 0.5]);
    expect(verifySample(retokenized, store.listCalls('s'))).toMatchObject({
      ok: false,
      errors: expect.arrayContaining([expect.stringContaining('not faithful')]),
    });
    expect(report.samples.find((sample) => sample.callIds[0] === good)!.faithful).toBe(true);
  });
});

describe('iterateSamples', () => {
  it('reads one session at a time, in the order given or every session when all is set', () => {
    for (const session of ['a', 'b', 'c']) recordRawCall(store, session, { prompt: [1], completion: [2] });
    const reads: string[] = [];
    const spy = {
      ...store,
      listCalls: (sessionId: string) => (reads.push(sessionId), store.listCalls(sessionId)),
      listSessions: store.listSessions,
      getCallBodies: store.getCallBodies,
    };
    const iterator = iterateSamples(spy, { sessionIds: ['c', 'a'], strategy: 'merge' });
    expect(iterator.next().value?.sessionId).toBe('c');
    expect(reads).toEqual(['c']);
    expect([...iterator].map((sample) => sample.sessionId)).toEqual(['a']);
    expect([...iterateSessions(store, { all: true })].map((report) => report.sessionId).sort()).toEqual(['a', 'b', 'c']);
    expect(() => [...iterateSamples(store, {})]).toThrow(expect.objectContaining({ code: 'TT_INVALID_ARGUMENT' }));
  });

  it('reports calls that became no sample through onSkippedCall', () => {
    recordRawCall(store, 'x', { prompt: [1], completion: [2], flags: ['logprobs_length_mismatch'] });
    const skipped: string[] = [];
    expect([
      ...iterateSamples(store, { sessionIds: ['x'], onSkippedCall: (call, sessionId) => skipped.push(`${sessionId}:${call.reason}`) }),
    ]).toEqual([]);
    expect(skipped).toEqual([expect.stringContaining('x:flagged logprobs_length_mismatch')]);
  });
});
