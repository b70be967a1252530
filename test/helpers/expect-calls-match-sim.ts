import { expect } from 'vitest';
import type { CallRow } from '../../store/types.js';
import type { SimGenerationRecord } from '../../sim/index.js';

/**
 * Asserts that every recorded call holds exactly what the simulator generated (its own log, written before
 * serialization): prompt ids, completion ids (EOS included) and one float32 logprob per id.
 */
export function expectCallsMatchSim(calls: CallRow[], records: SimGenerationRecord[]): void {
  expect(calls.map((call) => call.seq)).toEqual(calls.map((_, index) => index + 1));
  expect(calls).toHaveLength(records.length);
  calls.forEach((call, index) => {
    const record = records[index];
    if (record === undefined) throw new Error('missing sim record');
    expect(call.tokenSource).toBe('backend');
    expect(Array.from(call.promptTokenIds ?? [])).toEqual(record.promptTokenIds);
    expect(Array.from(call.completionTokenIds ?? [])).toEqual(record.completionTokenIds);
    expect(Array.from(call.completionLogprobs ?? [])).toEqual(record.logprobs.map((logprob) => Math.fround(logprob)));
    expect(call.finishReason).toBe(record.finishReason);
    expect(call.flags).toEqual([]);
  });
}
