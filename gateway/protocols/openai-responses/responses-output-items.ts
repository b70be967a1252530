import { randomUUID } from 'node:crypto';
import { isRecord } from '../../../core/json/is-record.js';
import { readReasoning } from '../../../model-format/backend-fields/read-reasoning.js';
import type { ResponsesToolNames } from './responses-tools.js';

export type OutputItem = Record<string, unknown> & { type: string; id: string };
type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** @example newResponseId() // 'resp_5f0c...' */
export function newResponseId(): string {
  return `resp_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Item ids of one response, stable from `output_item.added` to the final response: `msg_<response>_<n>`.
 * @example const nextId = createItemIds('resp_abc'); nextId('fc') // 'fc_abc_0'
 */
export function createItemIds(responseId: string): (prefix: 'rs' | 'msg' | 'fc' | 'ctc') => string {
  const base = responseId.replace(/^resp_/, '');
  let count = 0;
  return (prefix) => `${prefix}_${base}_${count++}`;
}

/** Raw reasoning goes out as `reasoning_text` content (it is the model's own text, not a summary). */
export function reasoningItem(id: string, text: string, status: ItemStatus): OutputItem {
  return { id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }], encrypted_content: null, status };
}

export function messageItem(id: string, text: string, status: ItemStatus): OutputItem {
  return { id, type: 'message', role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

/** A custom tool's chat call carries `{"input": "..."}`; arguments that are not that shape are taken as the input itself. */
export function customToolInput(chatArguments: string): string {
  try {
    const parsed: unknown = JSON.parse(chatArguments);
    if (isRecord(parsed) && typeof parsed.input === 'string') return parsed.input;
  } catch {
    // not JSON: the model wrote the input bare
  }
  return chatArguments;
}

export interface ChatToolCall {
  callId: string;
  chatName: string;
  arguments: string;
}

/**
 * A chat tool call as the Responses item of the tool it stands for: `function_call` (with `namespace` for a
 * namespace member) or `custom_tool_call`. `call_id` is the backend's tool call id.
 */
export function toolCallItem(id: string, call: ChatToolCall, names: ResponsesToolNames, status: ItemStatus): OutputItem {
  const target = names.target(call.chatName);
  const namespace = target.namespace === undefined ? {} : { namespace: target.namespace };
  if (target.kind === 'custom') {
    return { id, type: 'custom_tool_call', status, call_id: call.callId, name: target.name, ...namespace, input: customToolInput(call.arguments) };
  }
  return { id, type: 'function_call', status, call_id: call.callId, name: target.name, ...namespace, arguments: call.arguments };
}

/** The `call_id` of a chat tool call: the backend's id, or a fresh one if it sent none. */
export function callIdOf(rawId: unknown): string {
  return typeof rawId === 'string' && rawId !== '' ? rawId : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/**
 * A whole chat message as output items: reasoning, then the text message, then one item per tool call.
 * Whitespace-only text beside tool calls (vLLM returns the "\n\n" between `</think>` and `<tool_call>` as
 * content) is left out: sent back as history it would make the template render an extra newline.
 *
 * @example chatMessageToOutput({ content: 'Hi' }, names, nextId) // [{ type: 'message', ... }]
 */
export function chatMessageToOutput(
  message: Record<string, unknown>,
  names: ResponsesToolNames,
  nextId: ReturnType<typeof createItemIds>,
): OutputItem[] {
  const output: OutputItem[] = [];
  const reasoning = readReasoning(message);
  if (reasoning !== null && reasoning !== '') output.push(reasoningItem(nextId('rs'), reasoning, 'completed'));
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const content = typeof message.content === 'string' ? message.content : '';
  if (content.trim() !== '' || (toolCalls.length === 0 && content !== '')) output.push(messageItem(nextId('msg'), content, 'completed'));
  for (const call of toolCalls) {
    const fn = isRecord(call.function) ? call.function : {};
    const chatCall = {
      callId: callIdOf(call.id),
      chatName: typeof fn.name === 'string' ? fn.name : '',
      arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
    };
    output.push(toolCallItem(nextId(names.target(chatCall.chatName).kind === 'custom' ? 'ctc' : 'fc'), chatCall, names, 'completed'));
  }
  return output;
}

/** Responses usage from chat usage. vLLM reports no reasoning count, so `reasoning_tokens` is 0 unless it does. */
export function toResponsesUsage(usage: unknown): Record<string, unknown> | null {
  if (!isRecord(usage)) return null;
  const input = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const output = typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0;
  const promptDetails = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: typeof promptDetails.cached_tokens === 'number' ? promptDetails.cached_tokens : 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: typeof completionDetails.reasoning_tokens === 'number' ? completionDetails.reasoning_tokens : 0 },
    total_tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : input + output,
  };
}
