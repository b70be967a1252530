import { isRecord } from '../../core/json/is-record.js';
import { readReasoning, writeReasoning } from '../backend-fields/read-reasoning.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';

/** A message as vLLM hands it to the chat template. */
export type TemplateMessage = Record<string, unknown> & { role: string; content: string };

/**
 * Rewrites OpenAI chat messages the way vLLM does before rendering a "string"-content template such as
 * Qwen3's (vllm/entrypoints/chat_utils.py `_parse_chat_message_content` and `_postprocess_messages`):
 * - content parts are joined with "\n" (text parts only), null or missing content becomes "";
 * - assistant `tool_calls` are kept, an empty list is dropped, and each `function.arguments` JSON string is
 *   parsed to an object (empty or null arguments become `{}`), because templates print them with `tojson`;
 * - assistant `reasoning` / `reasoning_content` is passed on under both names;
 * - `tool_call_id` (tool messages) and a string `name` are kept; other fields are dropped.
 * Throws when an arguments string is not JSON, as vLLM does (it answers 400).
 *
 * @example
 * normalizeChatMessages([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }]);
 * // [{ role: 'user', content: 'a\nb' }]
 */
export function normalizeChatMessages(messages: readonly unknown[]): TemplateMessage[] {
  return messages.map((message, position) => normalizeMessage(message, position));
}

function normalizeMessage(message: unknown, position: number): TemplateMessage {
  if (!isRecord(message) || typeof message.role !== 'string') {
    throw new TokentapError('TT_INVALID_ARGUMENT', { message: `messages[${position}] must be an object with a string role` });
  }
  const result: TemplateMessage = { role: message.role, content: contentText(message.content) };
  if (message.role === 'assistant') {
    const toolCalls = message.tool_calls;
    if (Array.isArray(toolCalls) && toolCalls.length > 0) result.tool_calls = toolCalls.map(parseToolCallArguments);
    const reasoning = readReasoning(message);
    if (reasoning !== null) writeReasoning(result, reasoning);
  } else if (message.role === 'tool' && message.tool_call_id !== undefined) {
    result.tool_call_id = message.tool_call_id;
  }
  if (typeof message.name === 'string') result.name = message.name;
  return result;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('\n');
}

function parseToolCallArguments(toolCall: unknown): unknown {
  if (!isRecord(toolCall) || !isRecord(toolCall.function)) return toolCall;
  const argumentsValue = toolCall.function.arguments;
  let parsed: unknown;
  if (typeof argumentsValue === 'string' && argumentsValue !== '') parsed = JSON.parse(argumentsValue);
  else if (isRecord(argumentsValue) || Array.isArray(argumentsValue)) parsed = argumentsValue;
  else parsed = {};
  return { ...toolCall, function: { ...toolCall.function, arguments: parsed } };
}

/**
 * Tool definitions as vLLM passes them to the template (`tool.model_dump()` of its pydantic model): `type`
 * first, then `function` with `name`, `description` and `parameters` (null when absent), then any extra keys.
 *
 * @example
 * normalizeChatTools([{ type: 'function', function: { name: 'ls' } }]);
 * // [{ type: 'function', function: { name: 'ls', description: null, parameters: null } }]
 */
export function normalizeChatTools(tools: readonly unknown[]): Array<Record<string, unknown>> {
  return tools.map((tool) => {
    const definition = isRecord(tool) && isRecord(tool.function) ? tool.function : {};
    const { name, description, parameters, ...extra } = definition;
    return {
      type: 'function',
      function: { name, description: description ?? null, parameters: parameters ?? null, ...extra },
    };
  });
}
