import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openStore, type CallRow, type Store } from '../../store/index.js';
import { reconstructSession } from '../../reconstruct/reconstruct-session.js';
import type { Sample } from '../../reconstruct/sample.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordRawCall } from './record-raw-call.js';

let temp: ReturnType<typeof makeTempDir>;
let store: Store;
let calls: CallRow[];
let merged: Sample;

beforeEach(() => {
  temp = makeTempDir('tokentap-verify-');
  store = openStore({ path: temp.file('t.db') });
  recordRawCall(store, 's', { prompt: [10, 11, 12], completion: [13, 14], policyVersion: 'v1' });
  recordRawCall(store, 's', { prompt: [10, 11, 12, 13, 14, 15, 16], completion: [17, 18, 19], policyVersion: 'v2' });
  recordRawCall(store, 's', { prompt: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], completion: [21, 22] });
  calls = store.listCalls('s');
  [merged] = reconstructSession(store, 's') as [Sample];
});

afterEach(() => {
  store.close();
  temp.remove();
});

/** A deep copy of the sample, changed by `change`. */
function mutate(sample: Sample, change: (copy: Sample) => void): Sample {
  const copy: Sample = {
    ...sample,
    tokens: sample.tokens.slice(),
    lossMask: sample.lossMask.slice(),
    logprobs: sample.logprobs.slice(),
    policyVersions: [...sample.policyVersions],
    callIds: [...sample.callIds],
  };
  change(copy);
  return copy;
}

function errorsOf(sample: Sample, rows: readonly CallRow[] = calls): string[] {
  const result = verifySample(sample, rows);
  return result.ok ? [] : result.errors;
}

describe('verifySample', () => {
  it('accepts the merged sample and every per-call sample', () => {
    expect(merged.callIds).toHaveLength(3);
    expect(verifySample(merged, calls)).toEqual({ ok: true });
    for (const sample of reconstructSession(store, 's', { strategy: 'per-call' })) expect(verifySample(sample, calls)).toEqual({ ok: true });
  });

  it('fails when one mask bit is flipped, either way', () => {
    expect(errorsOf(mutate(merged, (copy) => void (copy.lossMask[3] = 0)))).toEqual([expect.stringContaining('sampled token 3 has mask 0')]);
    expect(errorsOf(mutate(merged, (copy) => void (copy.lossMask[5] = 1)))).toEqual([
      expect.stringContaining('token 5 has mask 1 but none of the calls sampled it'),
    ]);
  });

  it('fails when the logprobs are shifted by one position', () => {
    const shifted = mutate(merged, (copy) => copy.logprobs.set([0, ...merged.logprobs.subarray(0, -1)]));
    expect(errorsOf(shifted).join('\n')).toMatch(/token 3 has logprob 0, the backend reported/);
  });

  it('fails when one context token or one sampled token is swapped', () => {
    expect(errorsOf(mutate(merged, (copy) => void (copy.tokens[1] = 99))).join('\n')).toMatch(/token 1 is 99, its prompt has 11 there/);
    expect(errorsOf(mutate(merged, (copy) => void (copy.tokens[8] = 99))).join('\n')).toMatch(/token 8 is 99, it sampled 18 there/);
  });

  it('fails on a logprob one float32 ulp off, a logprob on context, or another policy version', () => {
    const ulp = mutate(merged, (copy) => {
      const bits = new Uint32Array(copy.logprobs.buffer);
      bits[4] = (bits[4] as number) + 1;
    });
    expect(errorsOf(ulp)).toEqual([expect.stringContaining('token 4 has logprob')]);
    expect(errorsOf(mutate(merged, (copy) => void (copy.logprobs[0] = -0.5)))).toEqual(['context token 0 has logprob -0.5, not 0']);
    expect(errorsOf(mutate(merged, (copy) => void (copy.policyVersions[7] = 'v1')))).toEqual([
      expect.stringContaining('token 7 has policy version v1, the call v2'),
    ]);
    expect(errorsOf(mutate(merged, (copy) => void (copy.policyVersions[0] = 'v1')))).toEqual(['context token 0 has policy version v1']);
  });

  it('fails when tokens are dropped or appended, or arrays disagree in length', () => {
    const dropped = mutate(merged, (copy) => {
      copy.tokens = copy.tokens.subarray(0, -1);
      copy.lossMask = copy.lossMask.subarray(0, -1);
      copy.logprobs = copy.logprobs.subarray(0, -1);
      copy.policyVersions = copy.policyVersions.slice(0, -1);
    });
    expect(errorsOf(dropped).join('\n')).toMatch(/needs 13 tokens, the sample has 12/);
    const appended = mutate(merged, (copy) => {
      copy.tokens = Int32Array.from([...copy.tokens, 23]);
      copy.lossMask = Uint8Array.from([...copy.lossMask, 0]);
      copy.logprobs = Float32Array.from([...copy.logprobs, 0]);
      copy.policyVersions = [...copy.policyVersions, null];
    });
    expect(errorsOf(appended)).toEqual(["token 13 is neither sampled by the calls nor part of any call's prompt"]);
    expect(errorsOf(mutate(merged, (copy) => void (copy.lossMask = copy.lossMask.subarray(1))))[0]).toMatch(/lossMask has 12 entries for 13 tokens/);
  });

  it('fails when a call is left out, listed out of order, or from another session', () => {
    expect(errorsOf(mutate(merged, (copy) => void copy.callIds.splice(1, 1))).join('\n')).toMatch(
      /token 7 has mask 1 but none of the calls sampled it/,
    );
    expect(errorsOf(mutate(merged, (copy) => void copy.callIds.reverse())).join('\n')).toMatch(/not in call order/);
    const other = recordRawCall(store, 'other', { prompt: [10, 11, 12], completion: [13, 14] });
    const foreign = mutate(merged, (copy) => void (copy.callIds[0] = other));
    expect(errorsOf(foreign, [...calls, ...store.listCalls('other')])).toEqual([expect.stringContaining('belongs to session other')]);
    expect(errorsOf(foreign)).toEqual([expect.stringContaining('is not among the given call rows')]);
  });

  it('refuses to train a flagged call even when its ids line up, and refuses unfaithful samples', () => {
    const flagged = recordRawCall(store, 's', {
      prompt: [10, 11, 12],
      completion: [13, 14],
      flags: ['completion_ids_mismatch_usage'],
      policyVersion: 'v1',
    });
    const rows = store.listCalls('s');
    const [perCall] = reconstructSession(store, 's', { strategy: 'per-call' }) as [Sample];
    expect(
      errorsOf(
        mutate(perCall, (copy) => void (copy.callIds = [flagged])),
        rows,
      ),
    ).toEqual(expect.arrayContaining([expect.stringContaining('is flagged completion_ids_mismatch_usage')]));
    expect(errorsOf(mutate(merged, (copy) => void (copy.faithful = false)))).toEqual([expect.stringContaining('not faithful')]);
    expect(errorsOf(mutate(merged, (copy) => void (copy.promptLength = 4)))).toEqual(["promptLength is 4, the first call's prompt has 3 ids"]);
  });

  it('fails on any single changed token, mask bit, logprob or policy version (property)', () => {
    const field = fc.constantFrom('token', 'mask', 'logprob', 'version');
    fc.assert(
      fc.property(field, fc.nat({ max: merged.tokens.length - 1 }), (kind, at) => {
        const broken = mutate(merged, (copy) => {
          if (kind === 'token') copy.tokens[at] = (copy.tokens[at] as number) + 1000;
          else if (kind === 'mask') copy.lossMask[at] = 1 - (copy.lossMask[at] as number);
          else if (kind === 'logprob') copy.logprobs[at] = (copy.logprobs[at] as number) - 0.25;
          else copy.policyVersions[at] = 'v9';
        });
        expect(verifySample(broken, calls).ok).toBe(false);
      }),
    );
  });
});
