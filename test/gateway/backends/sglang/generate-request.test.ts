import { describe, expect, it } from 'vitest';
import { buildGenerateRequest } from '../../../../gateway/backends/sglang/generate-request.js';

// GenerateReqInput (python/sglang/srt/managers/io_struct.py) and SamplingParams (srt/sampling/sampling_params.py)
describe('the /generate body of a token-faithful call', () => {
  const chat = {
    model: 'Qwen/Qwen3-8B',
    messages: [{ role: 'user', content: 'Hi' }],
    tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    chat_template_kwargs: { enable_thinking: true },
    return_token_ids: true,
    logprobs: true,
    top_logprobs: 3,
    temperature: 0.6,
    top_p: 0.95,
    top_k: 20,
    min_p: 0,
    max_tokens: 512,
    min_tokens: 2,
    seed: 7,
    stop: ['</answer>'],
    stop_token_ids: [151643],
    repetition_penalty: 1.05,
    include_stop_str_in_output: true,
    stream: true,
    stream_options: { include_usage: true },
  };

  it('sends the prompt ids as input_ids and every sampling field under its SGLang name', () => {
    const body = buildGenerateRequest(chat, [151644, 872, 198]);
    expect(body).toEqual({
      input_ids: [151644, 872, 198],
      sampling_params: {
        temperature: 0.6,
        top_p: 0.95,
        top_k: 20,
        min_p: 0,
        repetition_penalty: 1.05,
        stop: ['</answer>'],
        stop_token_ids: [151643],
        max_new_tokens: 512,
        min_new_tokens: 2,
        sampling_seed: 7,
        no_stop_trim: true,
      },
      return_logprob: true,
      logprob_start_len: -1,
      top_logprobs_num: 3,
      return_text_in_logprobs: true,
      stream: true,
    });
  });

  it('asks for the rest of the context when the chat body names no max tokens (SamplingParams would default to 128)', () => {
    const body = buildGenerateRequest({ model: 'm', messages: [] }, [1]);
    expect(body.sampling_params).toEqual({ max_new_tokens: null });
    expect(body.stream).toBe(false);
    expect(body.top_logprobs_num).toBe(0);
  });

  it('takes max_completion_tokens before max_tokens, as SGLang chat does, and response_format as json_schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } } };
    const body = buildGenerateRequest(
      { max_completion_tokens: 9, max_tokens: 99, response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } },
      [1],
    );
    expect(body.sampling_params).toEqual({ max_new_tokens: 9, json_schema: JSON.stringify(schema) });
    expect(buildGenerateRequest({ response_format: { type: 'json_object' } }, [1]).sampling_params).toMatchObject({
      json_schema: '{"type": "object"}',
    });
  });

  it("keeps the special tokens in the text for a family read with them (gpt-oss's Harmony channels), as the vLLM route does", () => {
    expect(buildGenerateRequest({ max_tokens: 5 }, [1], { keepSpecialTokens: true }).sampling_params).toEqual({
      max_new_tokens: 5,
      skip_special_tokens: false,
    });
    // a request's own skip_special_tokens is overruled: without the markers the output cannot be read back
    expect(buildGenerateRequest({ skip_special_tokens: true }, [1], { keepSpecialTokens: true }).sampling_params).toMatchObject({
      skip_special_tokens: false,
    });
    expect(buildGenerateRequest({ max_tokens: 5 }, [1]).sampling_params).toEqual({ max_new_tokens: 5 });
  });
});
