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

  // issue 16: a token-faithful call that went plain at run time says so, and why
  it('says how token-faithful mode rendered the call: a fallback to plain with its reason and error', () => {
    const metadata = { tokenFaithful: { mode: 'plain', reason: 'render-failed', error: 'the chat template cannot render\nthis conversation' } };
    const text = formatCallView(view(call({ metadata, flags: ['token_faithful_fallback'] })), { full: false });
    expect(text).toContain(
      '\n  flags: token_faithful_fallback\n  token-faithful: fell back to plain (render-failed: the chat template cannot render this conversation)\n',
    );
    const byDesign = call({ metadata: { tokenFaithful: { mode: 'plain', reason: 'multimodal-content' } } });
    expect(formatCallView(view(byDesign), { full: false })).toContain('\n  token-faithful: sent plain by design (multimodal-content)\n');
    const extended = call({ metadata: { tokenFaithful: { mode: 'extend', extends: 'call-1', newTokens: 50 } } });
    expect(formatCallView(view(extended), { full: false })).toContain('\n  token-faithful: extends call call-1 (+50 tokens)\n');
    const fresh = call({ metadata: { tokenFaithful: { mode: 'fresh', reason: 'first-call' } } });
    expect(formatCallView(view(fresh), { full: false })).toContain('\n  token-faithful: rendered fresh (first-call)\n');
    expect(formatCallView(view(call({})), { full: false })).not.toContain('token-faithful');
  });
});
