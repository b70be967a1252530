import type { ConversationMessage } from '../export-sample.js';
import { isRecord } from '../../core/json/is-record.js';
import { readReasoning } from '../../model-format/backend-fields/read-reasoning.js';

type ToolCall = NonNullable<ConversationMessage['tool_calls']>[number];

/**
 * One OpenAI chat message (a request message, or a reply's `message`) as a ConversationMessage: content as one
 * string (text parts joined with "\n", as vLLM joins them before a string-content template renders them; null or
 * missing as ""), `developer` as `system`, the assistant's reasoning from `reasoning` (vLLM since PR #27752) or
 * `reasoning_content` (before it), never from content; tool-call `arguments` as a JSON string; `tool_call_id` and
 * `name` on tool messages. Null when the message cannot be written as text: an unknown role, or a part that is not
 * text (an image, audio, a file), since a text format that silently loses it would teach the model to answer what
 * it never saw.
 *
 * @example
 * readConversationMessage({ role: 'assistant', content: null, reasoning: 'add', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: { a: 1 } } }] });
 * // { role: 'assistant', content: '', reasoning: 'add', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }] }
 */
export function readConversationMessage(raw: unknown): ConversationMessage | null {
  if (!isRecord(raw)) return null;
  const role = raw.role === 'developer' ? 'system' : raw.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return null;
  const content = contentText(raw.content);
  if (content === null) return null;
  const message: ConversationMessage = { role, content };
  if (role === 'assistant') {
    const reasoning = readReasoning(raw);
    if (reasoning !== null) message.reasoning = reasoning;
    const toolCalls = Array.isArray(raw.tool_calls) ? raw.tool_calls.map(readToolCall) : [];
    if (toolCalls.includes(null)) return null;
    if (toolCalls.length > 0) message.tool_calls = toolCalls as ToolCall[];
  }
  if (role === 'tool') {
    if (typeof raw.tool_call_id === 'string') message.tool_call_id = raw.tool_call_id;
    if (typeof raw.name === 'string') message.name = raw.name;
  }
  return message;
}

/** A string as is; text parts (`text`, and an assistant's `refusal`) joined with "\n"; null when a part is not text. */
function contentText(content: unknown): string | null {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string') texts.push(part.refusal);
    else return null;
  }
  return texts.join('\n');
}

/** A tool call with its arguments as text: the server's string as sent, an object (as some harnesses send) as JSON. */
function readToolCall(raw: unknown): ToolCall | null {
  if (!isRecord(raw) || !isRecord(raw.function) || typeof raw.function.name !== 'string') return null;
  const args = raw.function.arguments;
  return {
    id: typeof raw.id === 'string' ? raw.id : '',
    type: 'function',
    function: { name: raw.function.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
  };
}
