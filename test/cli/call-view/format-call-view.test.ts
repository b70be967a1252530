import { describe, expect, it } from 'vitest';
import { formatCallView, type CallView } from '../../../cli/call-view/format-call-view.js';
import type { CallRow } from '../../../store/index.js';

function call(fields: Partial<CallRow>): CallRow {
  return {
    id: '0b6f6c1e-1111-4222-8333-944455556666',
    sessionId: 'agent',
    seq: 1,
    frontDoor: 'openai-chat',
    path: '/v1/chat/completions',
    requestedModel: 'Qwen/Qwen3-8B',
    backendModel: 'Qwen/Qwen3-8B',
    stream: false,
    status: 'ok',
    tokenSource: 'backend',
    promptTokenIds: Int32Array.from([151644, 872, 198]),
    completionTokenIds: Int32Array.from([9707, 151645]),
    completionLogprobs: Float32Array.from([-0.5, -0.01]),
    finishReason: 'stop',
    stopReason: null,
    samplingParams: {},
    metadata: {},
    usage: { promptTokens: 3, completionTokens: 2 },
    error: null,
    httpStatus: 200,
    flags: [],
    policyVersion: null,
    backendId: null,
    weightVersion: null,
    startedAt: 1_700_000_000_000,
    endedAt: 1_700_000_000_040,
    timeToFirstTokenMs: 10,
    totalMs: 40,
    ...fields,
  };
}

function view(row: CallRow): CallView {
  return { call: row, messages: [], tools: [], response: null, assembledFromStream: false, harness: null };
}

// issue 15: show says which replica served a call, with which weights, beside tokentap's policy version
describe('the call view header', () => {
  it('names the backend replica, its weight version and the policy version, and the mismatch flag', () => {
    const row = call({ backendId: 'sglang-2', weightVersion: 'step-11', policyVersion: 'step-12', flags: ['weight_version_mismatch'] });
    const text = formatCallView(view(row), { full: false });
    expect(text).toContain('\n  backend sglang-2  weight version step-11  policy version step-12\n  tokens backend: prompt 3, completion 2\n');
    expect(text).toContain('\n  flags: weight_version_mismatch\n');
  });

  it('shows a dash for each a call does not have (recorded before schema 6, or by vLLM outside a fleet)', () => {
    expect(formatCallView(view(call({})), { full: false })).toContain('\n  backend -  weight version -  policy version -\n');
  });
});
