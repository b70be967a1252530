import { describe, expect, it } from 'vitest';
import { CompletionStreamAssembler } from '../../../gateway/backends/completion-stream-assembler.js';
import { prepareCompletionRequest } from '../../../gateway/backends/vllm-completion-request.js';
import { stripCompletionFields } from '../../../gateway/backends/vllm-completion-response.js';

/** A vLLM completion chunk: ids and logprobs inside the choice, prompt ids on the first chunk only. */
function chunk(text: string, id: number, logprob: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'cmpl-1',
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        text,
        logprobs: { text_offset: [0], token_logprobs: [logprob], tokens: [text], top_logprobs: [{ [text]: logprob }] },
        finish_reason: null,
        stop_reason: null,
        token_ids: [id],
        prompt_token_ids: null,
        ...extra,
      },
    ],
  };
}

describe('CompletionStreamAssembler', () => {
  it('reads per-choice prompt ids, token ids, legacy logprobs, finish reason and usage across chunks', () => {
    const assembler = new CompletionStreamAssembler();
    assembler.add(chunk(' Paris', 12095, -0.5, { prompt_token_ids: [1, 2, 3] }));
    expect(assembler.finished).toBe(false);
    assembler.add(chunk('.', 13, -0.25, { finish_reason: 'stop' }));
    assembler.add({ id: 'cmpl-1', object: 'text_completion', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    expect(assembler.finished).toBe(true);
    expect(assembler.tokenRecord()).toEqual({
      tokenSource: 'backend',
      promptTokenIds: [1, 2, 3],
      completionTokenIds: [12095, 13],
      completionLogprobs: [-0.5, -0.25],
      finishReason: 'stop',
      stopReason: null,
      usage: { promptTokens: 3, completionTokens: 2 },
      flags: [],
    });
    expect(assembler.responseBody()).toMatchObject({ object: 'text_completion', choices: [{ text: ' Paris.', finish_reason: 'stop' }] });
  });

  it('flags ids that disagree with usage, and reports no token source for a backend without ids', () => {
    const assembler = new CompletionStreamAssembler();
    assembler.addBody({
      choices: [{ index: 0, text: 'x', token_ids: [5], prompt_token_ids: [1], finish_reason: 'length' }],
      usage: { prompt_tokens: 1, completion_tokens: 2 },
    });
    expect(assembler.tokenRecord().flags).toEqual(['completion_ids_mismatch_usage']);
    const plain = new CompletionStreamAssembler();
    plain.addBody({ choices: [{ index: 0, text: 'x', token_ids: null, prompt_token_ids: null, finish_reason: 'stop' }] });
    expect(plain.tokenRecord()).toMatchObject({ tokenSource: 'none', completionTokenIds: null, flags: [] });
  });
});

describe('what tokentap injects on /v1/completions and strips again', () => {
  it('asks for token ids and at least one logprob, and usage on streams', () => {
    expect(prepareCompletionRequest({ prompt: 'x' }, { topLogprobs: 0 }).backendBody).toEqual({ prompt: 'x', return_token_ids: true, logprobs: 1 });
    expect(prepareCompletionRequest({ prompt: 'x', logprobs: 3, stream: true }, { topLogprobs: 5 }).backendBody).toEqual({
      prompt: 'x',
      return_token_ids: true,
      logprobs: 5,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(prepareCompletionRequest({ prompt: 'x', logprobs: -1 }, { topLogprobs: 5 }).backendBody.logprobs).toBe(-1);
  });

  it('cuts alternatives back to the harness k plus the sampled token', () => {
    const payload = {
      choices: [
        {
          index: 0,
          logprobs: { tokens: ['b'], token_logprobs: [-2], top_logprobs: [{ a: -1, b: -2, c: -3, 7: -0.5 }] },
          token_ids: [1],
          prompt_token_ids: [2],
        },
      ],
    };
    stripCompletionFields(payload, { tokenIds: false, logprobs: 1, streamUsage: false }, false);
    expect(payload.choices[0]).toEqual({ index: 0, logprobs: { tokens: ['b'], token_logprobs: [-2], top_logprobs: [{ 7: -0.5, b: -2 }] } });
  });

  it('drops the usage-only chunk the harness did not ask for', () => {
    expect(stripCompletionFields({ choices: [], usage: { prompt_tokens: 1 } }, { tokenIds: false, logprobs: null, streamUsage: false }, true)).toBe(
      false,
    );
    expect(stripCompletionFields({ choices: [], usage: { prompt_tokens: 1 } }, { tokenIds: false, logprobs: null, streamUsage: true }, true)).toBe(
      true,
    );
  });
});
