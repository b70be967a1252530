import type { ChatAnswer } from './chat-response-body.js';
import { createChatStreamDeltas, type ChatStreamDelta, type DeltaToolCall } from './chat-stream-deltas.js';
import { chatLogprobsContent } from './format-logprobs.js';
import { setReasoning, setTokenIds, usageInfo } from './response-fields.js';
import { streamGroups } from './stream-groups.js';
import type { StreamEvent } from './write-response.js';

export interface ChatStreamInput extends ChatAnswer {
  includeUsage: boolean;
  continuousUsage: boolean;
  /** vLLM's Hermes tool parser runs on this request (tools, and tool_choice not "none") */
  parseToolCalls: boolean;
  namedToolChoice: boolean;
  /** old vLLM: tokens the parser swallowed are never sent (see SimBackendOptions.dropStreamedToolCallIds) */
  dropSwallowed: boolean;
  /** tokens per chunk after the first (vLLM's `--stream-interval`, see streamGroups) */
  streamInterval: number;
}

/**
 * The chunks of a streamed chat completion, exactly as vLLM's `chat_completion_stream_generator` sends them
 * (each dumped with `exclude_unset`): the role chunk with the top-level `prompt_token_ids`; one chunk per
 * token with `delta.content`, `delta.reasoning` or `delta.tool_calls` (cut from the reply's layout, see
 * createChatStreamDeltas), its `token_ids` and `logprobs`; a token that vLLM's parsers would swallow (tags, the
 * JSON around tool-call arguments) still gets an empty-delta chunk when token ids or logprobs were asked (PR
 * #29074); the last token's chunk carries `finish_reason`, `stop_reason` and, for the end-of-turn token,
 * `delta: {"content": ""}`; then the usage chunk (`include_usage`) and `[DONE]`. With a stream interval above 1,
 * a chunk carries that many tokens (ids, logprobs and the deltas of all their text), as `--stream-interval` does.
 *
 * @example
 * await writeEventStream(exchange, chatStreamEvents(input), options);
 */
export function* chatStreamEvents(input: ChatStreamInput): Generator<StreamEvent> {
  const { plan } = input.generation;
  const promptTokens = input.promptTokenIds.length;
  yield { data: JSON.stringify(roleChunk(input)), tokens: 0 };
  const deltas = createChatStreamDeltas(input.generation.layout, { parseToolCalls: input.parseToolCalls });
  const sendEmpty = input.returnTokenIds || input.logprobs !== null;
  let waiting = 0;
  let wrongIdsPending = input.wrongTokenIds;
  const count = plan.tokenIds.length;
  let streamed = 0;
  for (const group of streamGroups(count, input.streamInterval)) {
    // vLLM hands the parsers the group's text as one delta, so one chunk carries all of it
    const from = streamed;
    for (let index = group.start; index < group.end; index++) streamed += plan.tokenTexts[index]?.length ?? 0;
    const delta = deltas.push(from, streamed);
    const last = group.end === count;
    waiting += group.end - group.start;
    if (delta === null && !last && (input.dropSwallowed || !sendEmpty)) continue;
    const ids = plan.tokenIds.slice(group.start, group.end);
    const choice: Record<string, unknown> = {
      index: 0,
      delta: deltaObject(delta ?? (last ? { content: '' } : {}), input),
      logprobs: input.logprobs === null ? null : { content: chatLogprobsContent(input.logprobs, ids, group.start) },
      finish_reason: last ? streamFinishReason(input, deltas.toolCallsStreamed) : null,
    };
    if (last) choice.stop_reason = plan.stopReason;
    setTokenIds(choice, 'token_ids', wrongIdsPending ? [ids[0] ?? 0, ...ids] : ids, {
      requested: input.returnTokenIds,
      unrequested: input.unrequestedTokenIds,
    });
    if (input.returnTokenIds) wrongIdsPending = false;
    const chunk = chunkHead(input, [choice]);
    if (input.continuousUsage) chunk.usage = usageInfo(promptTokens, group.end, { withDetails: false });
    yield { data: JSON.stringify(chunk), tokens: waiting };
    waiting = 0;
  }
  if (input.includeUsage) {
    const usageChunk = chunkHead(input, []);
    usageChunk.usage = usageInfo(promptTokens, plan.tokenIds.length, { withDetails: false });
    yield { data: JSON.stringify(usageChunk), tokens: 0 };
  }
  yield { data: '[DONE]', tokens: 0 };
}

function chunkHead(input: ChatStreamInput, choices: unknown[]): Record<string, unknown> {
  return { id: input.requestId, object: 'chat.completion.chunk', created: input.created, model: input.model, choices };
}

function roleChunk(input: ChatStreamInput): Record<string, unknown> {
  const chunk = chunkHead(input, [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  if (input.continuousUsage) chunk.usage = usageInfo(input.promptTokenIds.length, 0, { withDetails: false });
  // vLLM returns prompt_token_ids at the first chunk only
  setTokenIds(chunk, 'prompt_token_ids', input.promptTokenIds, { requested: input.returnTokenIds, unrequested: input.unrequestedTokenIds });
  return chunk;
}

function deltaObject(delta: ChatStreamDelta, input: ChatStreamInput): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (delta.content !== undefined) result.content = delta.content;
  if (delta.reasoning !== undefined) setReasoning(result, input.reasoningField, delta.reasoning);
  if (delta.toolCalls !== undefined) result.tool_calls = delta.toolCalls.map(toolCallObject);
  return result;
}

function toolCallObject(call: DeltaToolCall): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (call.id !== undefined) result.id = call.id;
  if (call.type !== undefined) result.type = call.type;
  result.index = call.index;
  result.function = call.function;
  return result;
}

// vLLM: "tool_calls" when the stream carried tool calls for auto/required tool_choice, "stop" for a named one
function streamFinishReason(input: ChatStreamInput, toolCallsStreamed: boolean): string {
  const finish = input.generation.plan.finishReason;
  return toolCallsStreamed && !input.namedToolChoice && finish === 'stop' ? 'tool_calls' : finish;
}
