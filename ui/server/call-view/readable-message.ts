import { isRecord } from '../../../core/json/is-record.js';
import { readReasoning } from '../../../model-format/backend-fields/read-reasoning.js';

/**
 * One piece of a message as a person reads it: text, reasoning, a tool call (name, id, arguments as sent), a tool's
 * result (the id it answers), an image (not shown), or anything else (its JSON).
 */
export interface ReadablePart {
  kind: 'text' | 'reasoning' | 'tool_call' | 'tool_result' | 'image' | 'other';
  text: string;
  /** the tool's name (tool_call), the block or item type (other) */
  name?: string;
  /** the tool call's id (tool_call), the id of the call a result answers (tool_result) */
  id?: string;
  /** tool_result: the harness marked the result an error (Anthropic `is_error`) */
  isError?: boolean;
}

/** A message of any front door's protocol, read into one shape. @example { role: 'user', parts: [{ kind: 'text', text: 'hi' }] } */
export interface ReadableMessage {
  role: string;
  parts: ReadablePart[];
}

/**
 * An OpenAI chat message (request history or a reply's `message`): reasoning first, then content, tool calls, and
 * for a `tool` message its content as the result of `tool_call_id`.
 *
 * @example readChatMessage({ role: 'tool', tool_call_id: 'c1', content: '42' }) // { role: 'tool', parts: [{ kind: 'tool_result', id: 'c1', text: '42' }] }
 */
export function readChatMessage(message: unknown): ReadableMessage {
  if (!isRecord(message)) return { role: '?', parts: [other('message', message)] };
  const role = typeof message.role === 'string' ? message.role : '?';
  const parts: ReadablePart[] = [];
  const reasoning = readReasoning(message);
  if (reasoning !== null && reasoning !== '') parts.push({ kind: 'reasoning', text: reasoning });
  const content = readContent(message.content);
  if (role === 'tool') parts.push({ kind: 'tool_result', text: content.map((part) => part.text).join('\n'), ...idOf(message.tool_call_id) });
  else parts.push(...content);
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
    parts.push({
      kind: 'tool_call',
      text: textOf(fn.arguments),
      name: typeof fn.name === 'string' ? fn.name : '?',
      ...idOf(isRecord(call) ? call.id : undefined),
    });
  }
  return { role, parts };
}

/**
 * A content field of any protocol: a string, or a list of parts (`text`, `input_text`, `output_text`, images, ...).
 *
 * @example readContent([{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: '...' } }]) // text 'hi', image
 */
export function readContent(content: unknown): ReadablePart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [other('content', content)];
  return content.map((part): ReadablePart => {
    if (typeof part === 'string') return { kind: 'text', text: part };
    if (!isRecord(part)) return other('part', part);
    if (typeof part.text === 'string') return { kind: 'text', text: part.text };
    const type = typeof part.type === 'string' ? part.type : 'part';
    if (type.includes('image')) return { kind: 'image', text: '', name: type };
    return other(type, part);
  });
}

/** A part shown as its JSON, named by its type. */
export function other(name: string, value: unknown): ReadablePart {
  return { kind: 'other', name, text: textOf(value) };
}

/** A string as it is, anything else as its JSON (tool arguments are a string in OpenAI, an object in Anthropic). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** `{ id }` when the value is a string id, else nothing. */
export function idOf(value: unknown): { id?: string } {
  return typeof value === 'string' ? { id: value } : {};
}
