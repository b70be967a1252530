import { describe, expect, it } from 'vitest';
import type { ChatTokenRecord } from '../../../gateway/backends/chat-token-record.js';
import { finishInput } from '../../../gateway/recorder/finish-inputs.js';

const timing = { startedAt: 1_700_000_000_000, firstTokenAt: 1_700_000_000_010 };

function tokens(weightVersion: string | null): ChatTokenRecord {
  return {
    tokenSource: 'backend',
    promptTokenIds: [151644, 872, 198],
    completionTokenIds: [9707, 151645],
    completionLogprobs: [-0.5, -0.01],
    finishReason: 'stop',
    stopReason: null,
    usage: { promptTokens: 3, completionTokens: 2 },
    flags: [],
    weightVersion,
  };
}

// issue 15: the served replica and the backend's weight version are recorded, and a mismatch is flagged
describe('finishInput: backend replica and weight version', () => {
  it("records the backend's weight version and flags it when it differs from the call's policy version", () => {
    const finish = finishInput({ status: 'ok', timing, tokens: tokens('step-11'), httpStatus: 200, policyVersion: 'step-12' });
    expect(finish).toMatchObject({ weightVersion: 'step-11', flags: ['weight_version_mismatch'] });
  });

  it("flags nothing when they agree, or SGLang reports its unset 'default', or the call has no policy version", () => {
    const cases = [
      finishInput({ status: 'ok', timing, tokens: tokens('step-12'), httpStatus: 200, policyVersion: 'step-12' }),
      finishInput({ status: 'ok', timing, tokens: tokens('default'), httpStatus: 200, policyVersion: 'step-12' }),
      finishInput({ status: 'ok', timing, tokens: tokens('step-11'), httpStatus: 200 }),
      finishInput({ status: 'ok', timing, tokens: tokens(null), httpStatus: 200, policyVersion: 'step-12' }),
    ];
    expect(cases.map((finish) => [finish.weightVersion, finish.flags])).toEqual([
      ['step-12', []],
      ['default', []],
      ['step-11', []],
      [null, []],
    ]);
  });

  it("names a failover's replica only when given one, so the replica named at begin is kept otherwise", () => {
    expect(finishInput({ status: 'ok', timing, tokens: tokens(null), httpStatus: 200, backendId: 'vllm-3' })).toMatchObject({ backendId: 'vllm-3' });
    const unmoved = finishInput({ status: 'backend_error', timing, httpStatus: 502 });
    expect(unmoved).not.toHaveProperty('backendId');
    expect(unmoved.weightVersion).toBeNull();
  });
});
