import { describe, expect, it } from 'vitest';
import { ChatStreamAssembler, readChatCompletionTokens } from '../../../gateway/backends/chat-stream-assembler.js';
import { stripInjectedFields, isBackendErrorPayload } from '../../../gateway/backends/vllm-chat-response.js';
import { prepareChatRequest } from '../../../gateway/backends/vllm-chat-request.js';
import { normalizeBackendErrorBody } from '../../../gateway/errors/openai-error-body.js';
import { agentLightningStream, readCapture, sseDataLines } from './vllm-captures.js';

describe('reading real vLLM streams', () => {
  it('joins the 63 prompt ids of the first chunk and the 200 per-chunk completion ids ending in EOS', () => {
    const { chunks } = agentLightningStream();
    const assembler = new ChatStreamAssembler();
    for (const chunk of chunks) assembler.add(structuredClone(chunk));
    const record = assembler.tokenRecord();
    expect(record.tokenSource).toBe('backend');
    expect(record.promptTokenIds).toHaveLength(63);
    expect(record.promptTokenIds?.slice(0, 3)).toEqual([151644, 8948, 198]);
    expect(record.completionTokenIds).toHaveLength(200);
    expect(record.completionTokenIds?.at(-1)).toBe(151645);
    expect(record.finishReason).toBe('stop');
    expect(record.stopReason).toBeNull();
    // no logprobs were asked in that capture: none recorded, rather than zeros
    expect(record.completionLogprobs).toBeNull();
    expect(record.flags).toEqual([]);
    const body = assembler.responseBody() as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content.startsWith('To determine the total number of bolts')).toBe(true);
  });

  it('records token_source none when the backend sends null ids, and flags nothing it cannot check', () => {
    const assembler = new ChatStreamAssembler();
    for (const line of sseDataLines(readCapture('vllm-chat-stream-toolcalls-reasoning-cloudflare-qwen3-trimmed.sse'))) {
      if (line !== '[DONE]') assembler.add(JSON.parse(line) as Record<string, unknown>);
    }
    const record = assembler.tokenRecord();
    expect(record.tokenSource).toBe('none');
    expect(record.completionTokenIds).toBeNull();
    expect(record.promptTokenIds).toBeNull();
    expect(record.finishReason).toBe('tool_calls');
    const message = (assembler.responseBody() as { choices: Array<{ message: Record<string, unknown> }> }).choices[0]?.message;
    expect(message?.reasoning_content).toEqual(expect.stringContaining('Okay'));
    expect((message?.tool_calls as Array<{ function: { name: string } }>)[0]?.function.name).toBe('add_todo');
  });

  it('flags a stream whose joined ids fall short of usage.completion_tokens (old vLLM dropping tool-call ids)', () => {
    const assembler = new ChatStreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }], prompt_token_ids: [1, 2, 3] });
    assembler.add({ choices: [{ index: 0, delta: { content: 'a' }, token_ids: [10] }] });
    assembler.add({
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }] }, token_ids: null },
      ],
    });
    assembler.add({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'tool_calls', token_ids: [151645] }] });
    assembler.add({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 9 } });
    const record = assembler.tokenRecord();
    expect(record.completionTokenIds).toEqual([10, 151645]);
    expect(record.flags).toContain('completion_ids_mismatch_usage');
  });

  it('reads a whole non-streamed body: ids, logprobs and stop reason', () => {
    const record = readChatCompletionTokens({
      prompt_token_ids: [5, 6],
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi' },
          logprobs: {
            content: [
              { token: 'Hi', logprob: -0.5 },
              { token: '', logprob: -9999.0 },
            ],
          },
          finish_reason: 'stop',
          stop_reason: 151645,
          token_ids: [13048, 151645],
        },
      ],
      usage: { prompt_tokens: 2, completion_tokens: 2 },
    });
    expect(record).toMatchObject({
      promptTokenIds: [5, 6],
      completionTokenIds: [13048, 151645],
      completionLogprobs: [-0.5, -9999],
      stopReason: 151645,
      flags: [],
    });
  });
});

describe('stripping what tokentap injected', () => {
  it('removes ids, logprobs and the usage chunk the harness did not ask for, and keeps every other field', () => {
    const { asked } = prepareChatRequest({ messages: [], stream: true }, { topLogprobs: 0 });
    const { chunks } = agentLightningStream();
    const first = structuredClone(chunks[0]) as Record<string, unknown>;
    expect(stripInjectedFields(first, asked, true)).toBe(true);
    expect(first).not.toHaveProperty('prompt_token_ids');
    expect(Object.keys(first)).toEqual(['id', 'object', 'created', 'model', 'choices']);
    const last = structuredClone(chunks.at(-1)) as { choices: Array<Record<string, unknown>> };
    stripInjectedFields(last, asked, true);
    expect(last.choices[0]).toEqual({ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop', stop_reason: null });
    expect(stripInjectedFields({ choices: [], usage: { completion_tokens: 1 } }, asked, true)).toBe(false);
  });

  it('keeps what the harness asked for itself, trimming top_logprobs to its own count', () => {
    const { asked, backendBody } = prepareChatRequest({ messages: [], return_token_ids: true, logprobs: true, top_logprobs: 1 }, { topLogprobs: 3 });
    expect(backendBody.top_logprobs).toBe(3);
    const body = { prompt_token_ids: [1], choices: [{ token_ids: [2], logprobs: { content: [{ logprob: -1, top_logprobs: [{}, {}, {}] }] } }] };
    stripInjectedFields(body, asked, false);
    expect(body.prompt_token_ids).toEqual([1]);
    expect(body.choices[0]?.token_ids).toEqual([2]);
    expect(body.choices[0]?.logprobs.content[0]?.top_logprobs).toHaveLength(1);
  });

  it('adds return_token_ids, logprobs and stream usage without touching other fields', () => {
    const harnessBody = { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true, tools: [{ type: 'function' }], foo: { bar: 1 } };
    const { backendBody } = prepareChatRequest(harnessBody, { model: 'served', topLogprobs: 0 });
    expect(backendBody).toEqual({ ...harnessBody, model: 'served', return_token_ids: true, logprobs: true, stream_options: { include_usage: true } });
    expect(harnessBody.model).toBe('m');
  });
});

describe('backend error bodies', () => {
  it('turns the flat pre-0.10.1 context-length error into OpenAI shape with context_length_exceeded', () => {
    const flat = JSON.parse(readCapture('vllm-error-400-context-length-flat-pre0.10.1-issue12886.json')) as Record<string, unknown>;
    expect(isBackendErrorPayload(flat)).toBe(true);
    const body = normalizeBackendErrorBody(flat, 400);
    expect(body.error.code).toBe('context_length_exceeded');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/maximum context length is 2048 tokens/);
  });

  it('keeps the nested (>= 0.10.1) error param and message', () => {
    const text = readCapture('vllm-error-400-context-length-nested-oompah-task338.md');
    const nested = JSON.parse(/\{"error":.*\}\}/.exec(text)?.[0] ?? '{}') as Record<string, unknown>;
    const body = normalizeBackendErrorBody(nested, 400);
    expect(body.error).toMatchObject({ param: 'input_tokens', code: 'context_length_exceeded' });
  });

  it('wraps a non-JSON error body in OpenAI shape with the backend status as code', () => {
    expect(normalizeBackendErrorBody('upstream exploded', 500).error).toEqual({
      message: 'upstream exploded',
      type: 'api_error',
      param: null,
      code: 500,
    });
  });
});
