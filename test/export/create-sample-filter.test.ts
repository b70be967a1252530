import { describe, expect, it } from 'vitest';
import { createSampleFilter, trainedPolicyVersions } from '../../export/create-sample-filter.js';
import { newestPolicyVersions } from '../../export/newest-policy-versions.js';
import type { Sample } from '../../reconstruct/index.js';

/** A hand-made sample: 3 context tokens then 2 trained ones, both of `versions`. */
function fakeSample(overrides: Partial<Sample> = {}, versions: Array<string | null> = ['v2', 'v2']): Sample {
  return {
    sessionId: 's',
    chainIndex: 0,
    tokens: Int32Array.from([1, 2, 3, 4, 5]),
    lossMask: Uint8Array.from([0, 0, 0, 1, 1]),
    logprobs: Float32Array.from([0, 0, 0, -0.5, -0.25]),
    policyVersions: [null, null, null, ...versions],
    promptLength: 3,
    callIds: ['c1'],
    rolloutId: 's',
    lossWeight: 1,
    status: 'completed',
    faithful: true,
    diagnostics: [],
    reward: 1,
    ...overrides,
  };
}

const history = [
  { version: 'v1', setAt: 1 },
  { version: 'v2', setAt: 2 },
  { version: 'v3', setAt: 3 },
];

describe('createSampleFilter', () => {
  it('keeps completed and truncated samples by default and names the status of the others', () => {
    const dropReason = createSampleFilter();
    expect(dropReason(fakeSample(), 0)).toBeNull();
    expect(dropReason(fakeSample({ status: 'truncated' }), 0)).toBeNull();
    for (const status of ['failed', 'aborted', 'in_progress', 'unknown'] as const)
      expect(dropReason(fakeSample({ status }), 0)).toBe(`status_${status}`);
  });

  it('an explicit status list replaces the default', () => {
    const dropReason = createSampleFilter({ filters: { status: ['failed'] } });
    expect(dropReason(fakeSample({ status: 'failed' }), null)).toBeNull();
    expect(dropReason(fakeSample(), null)).toBe('status_completed');
  });

  it('faithfulOnly drops retokenized samples as not_faithful', () => {
    expect(createSampleFilter({ filters: { faithfulOnly: true } })(fakeSample({ faithful: false }), 0)).toBe('not_faithful');
    expect(createSampleFilter()(fakeSample({ faithful: false }), 0)).toBeNull();
  });

  it('minLength and maxLength bound the total tokens, inclusive', () => {
    expect(createSampleFilter({ filters: { minLength: 5, maxLength: 5 } })(fakeSample(), 0)).toBeNull();
    expect(createSampleFilter({ filters: { minLength: 6 } })(fakeSample(), 0)).toBe('too_short');
    expect(createSampleFilter({ filters: { maxLength: 4 } })(fakeSample(), 0)).toBe('too_long');
  });

  it('maxStaleness keeps the newest maxStaleness + 1 versions set; unversioned trained tokens are unknown', () => {
    const current = createSampleFilter({ filters: { maxStaleness: 0 }, policyHistory: history });
    expect(current(fakeSample({}, ['v3', 'v3']), 0)).toBeNull();
    expect(current(fakeSample({}, ['v2', 'v3']), 0)).toBe('stale_policy');
    expect(current(fakeSample({}, [null, 'v3']), 0)).toBe('policy_version_unknown');
    const oneBehind = createSampleFilter({ filters: { maxStaleness: 1 }, policyHistory: history });
    expect(oneBehind(fakeSample({}, ['v2', 'v3']), 0)).toBeNull();
    expect(oneBehind(fakeSample({}, ['v1', 'v3']), 0)).toBe('stale_policy');
  });

  it('policyVersions keeps samples whose trained tokens all carry a listed version', () => {
    const listed = createSampleFilter({ filters: { policyVersions: ['v1', 'v2'] } });
    expect(listed(fakeSample({}, ['v1', 'v2']), 0)).toBeNull();
    expect(listed(fakeSample({}, ['v1', 'v3']), 0)).toBe('stale_policy');
    expect(listed(fakeSample({}, [null, 'v1']), 0)).toBe('policy_version_unknown');
  });

  it('versions of context tokens do not count', () => {
    const sample = fakeSample();
    sample.policyVersions[0] = 'v1';
    expect(createSampleFilter({ filters: { policyVersions: ['v2'] } })(sample, 0)).toBeNull();
  });

  it('drops samples with no trained token, and without reward or advantage when the format needs them', () => {
    expect(createSampleFilter()(fakeSample({ lossMask: new Uint8Array(5) }), 0)).toBe('no_trained_tokens');
    const needsBoth = createSampleFilter({ needs: { reward: true, advantage: true } });
    expect(needsBoth(fakeSample({ reward: undefined }), 0)).toBe('no_reward');
    expect(needsBoth(fakeSample(), null)).toBe('no_advantage');
    expect(needsBoth(fakeSample(), 0)).toBeNull();
    expect(createSampleFilter()(fakeSample({ reward: undefined }), null)).toBeNull();
  });

  it('names the first failing check: status before length before policy', () => {
    const dropReason = createSampleFilter({ filters: { maxLength: 1, policyVersions: ['none'] } });
    expect(dropReason(fakeSample({ status: 'failed' }), 0)).toBe('status_failed');
    expect(dropReason(fakeSample(), 0)).toBe('too_long');
  });
});

describe('newestPolicyVersions', () => {
  it('takes the newest distinct versions; a version set again counts at its newest setting', () => {
    expect(newestPolicyVersions(history, 0)).toEqual(new Set(['v3']));
    expect(newestPolicyVersions(history, 5)).toEqual(new Set(['v1', 'v2', 'v3']));
    expect(newestPolicyVersions([...history, { version: 'v1', setAt: 4 }], 1)).toEqual(new Set(['v1', 'v3']));
    expect(newestPolicyVersions([], 0)).toEqual(new Set());
  });

  it('refuses a negative or fractional staleness', () => {
    expect(() => newestPolicyVersions(history, -1)).toThrow(expect.objectContaining({ code: 'EXPORT_INVALID_OPTION' }));
    expect(() => newestPolicyVersions(history, 0.5)).toThrow(expect.objectContaining({ code: 'EXPORT_INVALID_OPTION' }));
  });
});

describe('trainedPolicyVersions', () => {
  it('lists the distinct versions of trained tokens in order of first use', () => {
    expect(trainedPolicyVersions(fakeSample({}, ['v2', 'v1']))).toEqual(['v2', 'v1']);
    expect(trainedPolicyVersions(fakeSample({}, [null, null]))).toEqual([null]);
  });
});
