import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChatStreamAssembler, readChatCompletionTokens } from '../../../../gateway/backends/chat-stream-assembler.js';
import { CompletionStreamAssembler } from '../../../../gateway/backends/completion-stream-assembler.js';
import type { ReplicaCapabilities } from '../../../../gateway/backends/fleet/fleet-types.js';
import { adaptCallForSglang } from '../../../../gateway/backends/sglang/adapt-call.js';
import { streamFromWholeBody } from '../../../../gateway/backends/sglang/stream-from-whole-body.js';
import { prepareChatRequest } from '../../../../gateway/backends/vllm-chat-request.js';
import { prepareCompletionRequest } from '../../../../gateway/backends/vllm-completion-request.js';
import { stripInjectedFields } from '../../../../gateway/backends/vllm-chat-response.js';
import type { BackendResponse } from '../../../../gateway/backends/vllm.js';
import { SseDecoder } from '../../../../core/sse/sse-decoder.js';

const SGLANG: ReplicaCapabilities = {
  version: '0.5.9',
  detectedFlavour: 'sglang',
  models: ['Qwen/Qwen3-8B'],
  returnsTokenIds: true,
  tokenIdsNote: null,
  incrementalStreaming: false,
};

/**
 * A non-streamed SGLang chat body with `return_token_ids` as serving_chat.py `_build_chat_response` and protocol.py
 * (ChatCompletionResponseChoice, its serializer dropping null prompt_token_ids/token_ids/meta_info/hidden_states)
 * write it: per-choice `prompt_token_ids` and `token_ids`, `matched_stop`, `reasoning_content`, tool calls with
 * `index`, usage with `reasoning_tokens`, top-level `metadata.weight_version` (capture 13 of SOURCES.md shows the
 * same envelope without ids, from before PR #30917).
 */
function sglangChatBody(): Record<string, unknown> {
  return {
    id: 'e87468f1c6b847ba99036a3aa37141dc',
    object: 'chat.completion',
    created: 1769180234,
    model: 'Qwen/Qwen3-8B',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Reading it.',
          reasoning_content: 'The user wants the file.',
          tool_calls: [{ id: 'call_1', index: 0, type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
        matched_stop: 151645,
        prompt_token_ids: [151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198],
        token_ids: [151667, 785, 151668, 4418, 432, 13, 151657, 5212, 151658, 151645],
      },
    ],
    usage: { prompt_tokens: 9, total_tokens: 19, completion_tokens: 10, prompt_tokens_details: null, reasoning_tokens: 3 },
    metadata: { weight_version: 'step-12' },
  };
}

function jsonResponse(body: unknown, statusCode = 200): BackendResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'content-length': String(JSON.stringify(body).length) },
    body: Readable.from([Buffer.from(JSON.stringify(body))]) as BackendResponse['body'],
    headersAt: 1,
  };
}

async function readAll(response: BackendResponse): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('plain calls to an SGLang replica', () => {
  const harness = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'Read a.txt' }], stream: true };

  it('sends a streamed chat call non-streamed (SGLang answers return_token_ids on a stream with a 400) and relays it as a stream', () => {
    const { backendBody } = prepareChatRequest(harness, { topLogprobs: 0 });
    const createAssembler = () => new ChatStreamAssembler();
    const call = adaptCallForSglang({ path: '/v1/chat/completions', body: backendBody, stream: true, createAssembler }, SGLANG);
    expect(call).toMatchObject({ path: '/v1/chat/completions', stream: false, wholeBodyAsStream: true, createAssembler });
    expect(call.body).toMatchObject({ stream: false, return_token_ids: true, logprobs: true });
    expect(call.body.stream_options).toBeUndefined();
    // the front door's body is left as it was
    expect(backendBody.stream).toBe(true);
  });

  it('keeps the stream, without return_token_ids, on a replica that returns no token ids', () => {
    const { backendBody } = prepareChatRequest(harness, { topLogprobs: 0 });
    const call = adaptCallForSglang(
      { path: '/v1/chat/completions', body: backendBody, stream: true, createAssembler: () => new ChatStreamAssembler() },
      { ...SGLANG, returnsTokenIds: false },
    );
    expect(call).toMatchObject({ stream: true, wholeBodyAsStream: false });
    expect(call.body.return_token_ids).toBeUndefined();
  });

  it('sends non-streamed chat and every completions call as the front door built them', () => {
    const chat = prepareChatRequest({ ...harness, stream: false }, { topLogprobs: 0 }).backendBody;
    const completion = prepareCompletionRequest({ model: 'm', prompt: 'Hi', stream: true }, { topLogprobs: 0 }).backendBody;
    const createAssembler = () => new CompletionStreamAssembler();
    expect(adaptCallForSglang({ path: '/v1/chat/completions', body: chat, stream: false, createAssembler }, SGLANG)).toMatchObject({
      body: chat,
      stream: false,
      wholeBodyAsStream: false,
    });
    expect(adaptCallForSglang({ path: '/v1/completions', body: completion, stream: true, createAssembler }, SGLANG)).toMatchObject({
      body: completion,
      stream: true,
      wholeBodyAsStream: false,
    });
  });

  it("reads SGLang's chat body: prompt ids in the choice, matched_stop, weight version", () => {
    const record = readChatCompletionTokens(sglangChatBody());
    expect(record).toMatchObject({
      tokenSource: 'backend',
      promptTokenIds: [151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198],
      completionTokenIds: [151667, 785, 151668, 4418, 432, 13, 151657, 5212, 151658, 151645],
      finishReason: 'tool_calls',
      stopReason: 151645,
      weightVersion: 'step-12',
      flags: [],
    });
  });

  it('strips the per-choice prompt ids SGLang sends when the harness did not ask for ids', () => {
    const body = sglangChatBody();
    stripInjectedFields(body, { tokenIds: false, logprobs: false, topLogprobs: 0, streamUsage: false }, false);
    const choice = (body.choices as Array<Record<string, unknown>>)[0]!;
    expect(choice.prompt_token_ids).toBeUndefined();
    expect(choice.token_ids).toBeUndefined();
  });

  it('turns the whole body into chat chunks ending in [DONE] that assemble into the same message and ids', async () => {
    const response = await streamFromWholeBody(jsonResponse(sglangChatBody()));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['content-length']).toBeUndefined();
    const events = new SseDecoder().push(await readAll(response));
    expect(events.at(-1)?.data).toBe('[DONE]');
    const assembler = new ChatStreamAssembler();
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    for (const chunk of chunks) assembler.add(chunk);
    expect(assembler.tokenRecord()).toEqual(readChatCompletionTokens(sglangChatBody()));
    const message = (assembler.responseBody().choices as Array<{ message: Record<string, unknown> }>)[0]?.message;
    expect(message).toEqual({
      role: 'assistant',
      content: 'Reading it.',
      reasoning_content: 'The user wants the file.',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } }],
    });
    expect(chunks[0]).toMatchObject({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 10 } });
  });

  it('gives an error or a body that is no chat completion back as it came, for the relay to answer', async () => {
    const error = {
      object: 'error',
      message: "The input (40961 tokens) is longer than the model's context length (40960 tokens).",
      type: 'BadRequest',
      param: null,
      code: 400,
    };
    const refused = await streamFromWholeBody(jsonResponse(error, 400));
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toBe('application/json');
    expect(JSON.parse(await readAll(refused))).toEqual(error);
    const odd = await streamFromWholeBody(jsonResponse({ text: 'not chat' }));
    expect(odd.headers['content-type']).toBe('application/json');
    expect(await readAll(odd)).toBe('{"text":"not chat"}');
  });
});
