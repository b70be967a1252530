import { describe, expect, it } from 'vitest';
import { isWeightVersionMismatch } from '../../../gateway/recorder/weight-version-mismatch.js';

// issue 15: SGLang's weight_version is recorded beside tokentap's policy version, and a mismatch is a flag
describe('isWeightVersionMismatch', () => {
  it('is false when the versions are equal', () => {
    expect(isWeightVersionMismatch({ weightVersion: 'step-12', policyVersion: 'step-12' })).toBe(false);
  });

  it('is true when the backend reports another version than the call was tagged with', () => {
    expect(isWeightVersionMismatch({ weightVersion: 'step-11', policyVersion: 'step-12' })).toBe(true);
  });

  it("is false for SGLang's unset value 'default', which names no weights", () => {
    expect(isWeightVersionMismatch({ weightVersion: 'default', policyVersion: 'step-12' })).toBe(false);
  });

  it('is false for a call served under no policy version', () => {
    expect(isWeightVersionMismatch({ weightVersion: 'step-11', policyVersion: null })).toBe(false);
  });

  it('is false when the backend reports no weight version (vLLM)', () => {
    expect(isWeightVersionMismatch({ weightVersion: null, policyVersion: 'step-12' })).toBe(false);
  });
});
