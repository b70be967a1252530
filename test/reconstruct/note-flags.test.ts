import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconstructSessionReport, verifySample } from '../../reconstruct/index.js';
import { openStore, type Store } from '../../store/index.js';
import { recordRawCall } from './record-raw-call.js';

let store: Store;
beforeEach(() => {
  store = openStore({ path: ':memory:' });
});
afterEach(() => store.close());

describe('token_faithful_fallback is a note, not a doubt: reconstruction trusts the ids of a call carrying it', () => {
  it('merges a fallback call into its chain and the verifier accepts the sample', () => {
    recordRawCall(store, 's', { prompt: [1, 2, 3], completion: [4, 5] });
    // the second call went plain (the backend rendered it): its ids are exact and carry the first call on
    recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6], completion: [7, 8], flags: ['token_faithful_fallback'] });
    recordRawCall(store, 's', { prompt: [1, 2, 3, 4, 5, 6, 7, 8, 9], completion: [10] });
    const report = reconstructSessionReport(store, 's', { strategy: 'merge' });
    expect(report.skipped).toEqual([]);
    expect(report.samples).toHaveLength(1);
    expect(report.samples[0]!.callIds).toHaveLength(3);
    expect(verifySample(report.samples[0]!, store.listCalls('s'))).toEqual({ ok: true });
  });

  it('still skips a call with another flag beside it, naming only the flag that casts the doubt', () => {
    recordRawCall(store, 's', { prompt: [1, 2, 3], completion: [4, 5], flags: ['token_faithful_fallback', 'prompt_ids_mismatch_usage'] });
    const report = reconstructSessionReport(store, 's', { strategy: 'merge' });
    expect(report.samples).toEqual([]);
    expect(report.skipped.map((skip) => skip.reason)).toEqual(['flagged prompt_ids_mismatch_usage: its ids are not trusted']);
  });

  it('names the policy, not the ids, as the doubt of a weight version mismatch', () => {
    recordRawCall(store, 's', { prompt: [1, 2, 3], completion: [4, 5], flags: ['weight_version_mismatch'] });
    recordRawCall(store, 't', { prompt: [1, 2, 3], completion: [4, 5], flags: ['weight_version_mismatch', 'invalid_token_ids'] });
    expect(reconstructSessionReport(store, 's', { strategy: 'merge' }).skipped.map((skip) => skip.reason)).toEqual([
      'flagged weight_version_mismatch: the replica was not serving its policy version, so its tokens would be trained as the wrong policy',
    ]);
    expect(reconstructSessionReport(store, 't', { strategy: 'merge' }).skipped.map((skip) => skip.reason)).toEqual([
      'flagged weight_version_mismatch, invalid_token_ids: its ids are not trusted; the replica was not serving its policy version, so its tokens would be trained as the wrong policy',
    ]);
  });
});
