import { createChatStreamDeltas, type DeltaToolCall } from '../chat-stream-deltas.js';
import { streamGroups } from '../stream-groups.js';
import type { StreamEvent } from '../write-response.js';
import { sglangMessageFields } from './sglang-message-fields.js';
import type { SglangGeneration } from './sglang-generation.js';
import type { SglangLogprobSource } from './sglang-logprobs.js';
import { chatLogprobs } from './sglang-openai-logprobs.js';

/** Everything an SGLang chat answer is built from. */
export interface SglangChatAnswer {
  id: string;
  created: number;
  /** the request's `model` echoed (SGLang answers with what was asked; `default` when absent) */
  model: string;
  promptTokenIds: readonly number[];
  result: SglangGeneration;
  parseToolCalls: boolean;
  reasoningTokens: number;
  weightVersion: string;
  logprobs: SglangLogprobSource | null;
  returnTokenIds: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  streamInterval: number;
}

/**
 * A non-streamed `chat.completion` as serving_chat.py `_build_chat_response` dumps it (protocol.py
 * `ChatCompletionResponse`): the message `{role, content, reasoning_content, tool_calls}`, `finish_reason` and
 * `matched_stop` (the EOS id, stop token or stop string; null after a length cut or when tool calls turn "stop" into
 * "tool_calls"), `prompt_token_ids` then `token_ids` in the choice when `return_token_ids` (else absent), usage with
 * `reasoning_tokens`, and `metadata: {weight_version}`.
 *
 * @example
 * JSON.stringify(sglangChatBody(answer)); // '{"id":"e87468f1…","object":"chat.completion",…,"metadata":{"weight_version":"default"}}'
 */
export function sglangChatBody(answer: SglangChatAnswer): Record<string, unknown> {
  const { result } = answer;
  const fields = sglangMessageFields(result.generation.layout, result.text.length, answer.parseToolCalls);
  const toolCalled = fields.toolCalls !== null && result.finishReason.type === 'stop';
  const choice: Record<string, unknown> = {
    index: 0,
    message: { role: 'assistant', content: fields.content, reasoning_content: fields.reasoningContent, tool_calls: fields.toolCalls },
    logprobs: answer.logprobs === null ? null : chatLogprobs(answer.logprobs, result.outputIds, 0),
    finish_reason: toolCalled ? 'tool_calls' : result.finishReason.type,
    matched_stop: toolCalled || result.finishReason.type !== 'stop' ? null : result.finishReason.matched,
  };
  if (answer.returnTokenIds) {
    choice.prompt_token_ids = answer.promptTokenIds;
    choice.token_ids = result.outputIds;
  }
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [choice],
    usage: usage(answer, result.outputIds.length, true),
    metadata: { weight_version: answer.weightVersion },
  };
}

/**
 * The chunks of a streamed SGLang chat completion (serving_chat.py `_generate_chat_stream`, sse_utils.py
 * `build_sse_content`): the role chunk; per stream group a `reasoning_content` chunk and/or a content chunk (none for
 * a group that adds no text), their `delta` always carrying `reasoning_content` (null when it is content); with tools
 * the content and tool-call deltas come as pydantic chunks (`{role, content, reasoning_content, tool_calls}` all
 * present, `usage: null`); logprobs ride on the group's first chunk, or on a delta-less chunk when no text went out;
 * then a separate finish chunk with `finish_reason` and `matched_stop`, the usage chunk (`include_usage`) and
 * `[DONE]`. Deltas are cut from the reply's layout as the vLLM flavour cuts them.
 *
 * @example
 * await writeEventStream(exchange, sglangChatStreamEvents(answer), options);
 */
export function* sglangChatStreamEvents(answer: SglangChatAnswer): Generator<StreamEvent> {
  const { result } = answer;
  yield { data: JSON.stringify(lightChunk(answer, { reasoning_content: null, role: 'assistant', content: '' }, null)), tokens: 0 };
  const deltas = createChatStreamDeltas(result.generation.layout, { parseToolCalls: answer.parseToolCalls });
  const count = result.outputIds.length;
  let streamed = 0;
  // tokens of groups that sent no chunk are counted on the next chunk (pacing, cut-stream faults)
  let waiting = 0;
  for (const group of streamGroups(count, answer.streamInterval)) {
    waiting += group.end - group.start;
    const from = streamed;
    for (let index = group.start; index < group.end; index++) streamed += result.tokenTexts[index]?.length ?? 0;
    const delta = deltas.push(from, streamed);
    let logprobs: unknown =
      answer.logprobs === null ? null : chatLogprobs(answer.logprobs, result.outputIds.slice(group.start, group.end), group.start);
    const chunks: Record<string, unknown>[] = [];
    const take = (): unknown => {
      const taken = logprobs;
      logprobs = null;
      return taken;
    };
    const stepUsage = answer.continuousUsage ? usage(answer, group.end, false) : null;
    if (delta?.reasoning !== undefined) chunks.push(lightChunk(answer, { reasoning_content: delta.reasoning }, take(), stepUsage));
    if (delta?.content !== undefined) {
      chunks.push(
        answer.parseToolCalls
          ? fullChunk(answer, { content: delta.content, tool_calls: null }, take())
          : lightChunk(answer, { reasoning_content: null, content: delta.content }, take(), stepUsage),
      );
    }
    if (delta?.toolCalls !== undefined) chunks.push(fullChunk(answer, { content: null, tool_calls: delta.toolCalls.map(toolCallDelta) }, take()));
    if (logprobs !== null) chunks.push(lightChunk(answer, { reasoning_content: null }, take(), stepUsage));
    for (const chunk of chunks) {
      yield { data: JSON.stringify(chunk), tokens: waiting };
      waiting = 0;
    }
  }
  yield { data: JSON.stringify(finishChunk(answer, deltas.toolCallsStreamed)), tokens: waiting };
  if (answer.includeUsage) {
    yield { data: JSON.stringify({ ...head(answer), choices: [], usage: usage(answer, count, true) }), tokens: 0 };
  }
  yield { data: '[DONE]', tokens: 0 };
}

function head(answer: SglangChatAnswer): Record<string, unknown> {
  return { id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model };
}

// sse_utils.py: msgspec structs, `delta` and the chunk omit unset fields, the choice keeps all five
function lightChunk(
  answer: SglangChatAnswer,
  delta: Record<string, unknown>,
  logprobs: unknown,
  chunkUsage: unknown = null,
): Record<string, unknown> {
  const chunk: Record<string, unknown> = {
    ...head(answer),
    choices: [{ index: 0, delta, logprobs, finish_reason: null, matched_stop: null }],
  };
  if (chunkUsage !== null) chunk.usage = chunkUsage;
  return chunk;
}

// ChatCompletionStreamResponse.model_dump_json(): every DeltaMessage field, `usage: null`
function fullChunk(answer: SglangChatAnswer, delta: { content: string | null; tool_calls: unknown }, logprobs: unknown): Record<string, unknown> {
  return {
    ...head(answer),
    choices: [
      {
        index: 0,
        delta: { role: null, content: delta.content, reasoning_content: null, tool_calls: delta.tool_calls },
        logprobs,
        finish_reason: null,
        matched_stop: null,
      },
    ],
    usage: null,
  };
}

function toolCallDelta(call: DeltaToolCall): Record<string, unknown> {
  return {
    id: call.id === undefined ? null : call.id.replace(/^chatcmpl-tool-/u, 'call_').slice(0, 29),
    index: call.index,
    type: 'function',
    function: { name: call.function.name ?? null, arguments: call.function.arguments ?? '' },
  };
}

// the stream keeps the finish dict's `matched` even when tool calls turn "stop" into "tool_calls"
function finishChunk(answer: SglangChatAnswer, toolCallsStreamed: boolean): Record<string, unknown> {
  const finish = answer.result.finishReason;
  const reason = toolCallsStreamed && finish.type === 'stop' ? 'tool_calls' : finish.type;
  const matched = finish.type === 'stop' ? finish.matched : null;
  return {
    ...head(answer),
    choices: [{ index: 0, delta: { reasoning_content: null }, logprobs: null, finish_reason: reason, matched_stop: matched }],
  };
}

// protocol.py UsageInfo; stream usage chunks (model_dump_json) keep prompt_tokens_details: null too
function usage(answer: SglangChatAnswer, completionTokens: number, final: boolean): Record<string, unknown> {
  const promptTokens = answer.promptTokenIds.length;
  return {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens: completionTokens,
    prompt_tokens_details: null,
    reasoning_tokens: final ? answer.reasoningTokens : Math.min(answer.reasoningTokens, completionTokens),
  };
}
