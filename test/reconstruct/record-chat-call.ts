import type { CallFlag, Store } from '../../store/index.js';
import type { HfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { normalizeChatMessages, normalizeChatTools } from '../../model-format/chat-template/normalize-chat-messages.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../../model-format/chat-template/render-chat-template.js';
import type { ChatMessage } from './planned-harness.js';
import type { PlannedReply } from './session-plan.js';

/** The two tools every simulated agent offers. */
export const FILE_TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
];

/** The prompt ids vLLM would send the model: the Qwen3 template rendered (thinking on) and tokenized whole. */
export function renderPrompt(tokenizer: HfTokenizer, messages: readonly ChatMessage[]): Int32Array {
  const text = renderChatTemplate({
    template: tokenizer.chatTemplate as string,
    messages: normalizeChatMessages(messages),
    tools: normalizeChatTools(FILE_TOOLS),
    addGenerationPrompt: true,
    specialTokens: chatTemplateSpecialTokens(tokenizer),
  });
  return Int32Array.from(tokenizer.encode(text));
}

export interface CallContext {
  store: Store;
  sessionId: string;
  messages: readonly ChatMessage[];
  prompt: Int32Array;
  policyVersion: string | null;
  seed: number;
}

export interface RecordedCompletion {
  completion: Int32Array;
  /** what the response body says the model replied */
  reply: PlannedReply;
  status?: 'ok' | 'aborted';
  finishReason?: string | null;
  flags?: CallFlag[];
  compactArguments?: boolean;
}

/** Writes one chat call through the store API as the gateway's recorder does (request bodies, reply, ids, logprobs). */
export function recordChatCall(context: CallContext, call: RecordedCompletion): string {
  const body = { model: 'Qwen/Qwen3-8B', messages: structuredClone(context.messages), tools: FILE_TOOLS };
  const { callId } = context.store.beginCall({
    sessionId: context.sessionId,
    frontDoor: 'openai-chat',
    path: '/v1/chat/completions',
    requestedModel: 'Qwen/Qwen3-8B',
    backendModel: 'Qwen/Qwen3-8B',
    stream: false,
    requestBody: body,
    backendRequestBody: { ...body, return_token_ids: true, logprobs: true },
    samplingParams: {},
    metadata: {},
    startedAt: Date.now(),
    policyVersion: context.policyVersion,
  });
  const toolCalls = call.reply.toolCalls.map((toolCall, index) => ({
    id: `chatcmpl-tool-${context.seed}-${index}`,
    type: 'function',
    function: {
      name: toolCall.name,
      arguments:
        call.compactArguments === true
          ? JSON.stringify(toolCall.arguments)
          : JSON.stringify(toolCall.arguments).replaceAll('":"', '": "').replaceAll('","', '", "'),
    },
  }));
  const message = {
    role: 'assistant',
    content: call.reply.content ?? null,
    reasoning: call.reply.reasoning === undefined ? undefined : `\n${call.reply.reasoning}\n`,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  const logprobs = Float32Array.from(call.completion, (_, index) => -(((context.seed * 31 + index * 17) % 1000) / 250) - 0.001);
  context.store.finishCall(callId, {
    status: call.status ?? 'ok',
    tokenSource: 'backend',
    promptTokenIds: context.prompt,
    completionTokenIds: call.completion,
    completionLogprobs: logprobs,
    finishReason: call.finishReason === undefined ? (toolCalls.length > 0 ? 'tool_calls' : 'stop') : call.finishReason,
    stopReason: null,
    responseBody: { choices: [{ index: 0, message, finish_reason: call.finishReason ?? 'stop' }] },
    usage: null,
    error: null,
    httpStatus: 200,
    flags: call.flags ?? [],
    timeToFirstTokenMs: 1,
    totalMs: 2,
    endedAt: Date.now(),
  });
  return callId;
}

/**
 * The completion with one lowercase word token sampled as two tokens instead (same text, other ids), as a model may
 * sample a non-canonical tokenization; null when no token qualifies.
 */
export function splitOneToken(tokenizer: HfTokenizer, completion: Int32Array): Int32Array | null {
  for (let index = 1; index < completion.length; index++) {
    const id = completion[index] as number;
    const text = tokenizer.decode([id]);
    if (tokenizer.isSpecialId(id) || !/^ ?[a-z]{4,}$/.test(text)) continue;
    const parts = [...tokenizer.encode(text.slice(0, -2)), ...tokenizer.encode(text.slice(-2))];
    if (parts.length < 2 || tokenizer.decode(parts) !== text) continue;
    return Int32Array.from([...completion.subarray(0, index), ...parts, ...completion.subarray(index + 1)]);
  }
  return null;
}
