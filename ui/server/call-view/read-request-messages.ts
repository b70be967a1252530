import { isRecord } from '../../../core/json/is-record.js';
import { idOf, other, readChatMessage, readContent, textOf, type ReadableMessage, type ReadablePart } from './readable-message.js';

/**
 * The messages of a harness's request, in the harness's own protocol, read into one shape: the OpenAI chat
 * `messages`, Anthropic's `system` and content blocks, the Responses API's `instructions` and input items, or a
 * completion's `prompt`. Nothing is translated to what the backend was sent: this is what the harness wrote.
 *
 * @example
 * readRequestMessages('anthropic-messages', { system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] });
 * // [{ role: 'system', parts: [{ kind: 'text', text: 'Be brief.' }] }, { role: 'user', parts: [{ kind: 'text', text: 'hi' }] }]
 */
export function readRequestMessages(frontDoor: string, body: unknown): ReadableMessage[] {
  if (!isRecord(body)) return [];
  if (frontDoor === 'anthropic-messages') return readAnthropic(body);
  if (frontDoor === 'openai-responses') return readResponsesInput(body);
  if (frontDoor === 'openai-completions') return readPrompt(body.prompt);
  return Array.isArray(body.messages) ? body.messages.map(readChatMessage) : [];
}

/** The names of the tools the request offered (`function.name` in OpenAI chat, `name` elsewhere). */
export function readToolNames(body: unknown): string[] {
  if (!isRecord(body) || !Array.isArray(body.tools)) return [];
  return body.tools.map((tool) => {
    const named = isRecord(tool) && isRecord(tool.function) ? tool.function : tool;
    return isRecord(named) && typeof named.name === 'string' ? named.name : '?';
  });
}

function readAnthropic(body: Record<string, unknown>): ReadableMessage[] {
  const messages: ReadableMessage[] = [];
  const system = readAnthropicBlocks(body.system);
  if (system.length > 0) messages.push({ role: 'system', parts: system });
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isRecord(message)) messages.push({ role: '?', parts: [other('message', message)] });
    else messages.push({ role: typeof message.role === 'string' ? message.role : '?', parts: readAnthropicBlocks(message.content) });
  }
  return messages;
}

/** Anthropic content (a string or content blocks: text, thinking, tool_use, tool_result ...) as readable parts. */
export function readAnthropicBlocks(content: unknown): ReadablePart[] {
  if (!Array.isArray(content)) return readContent(content);
  return content.map((block): ReadablePart => {
    if (!isRecord(block)) return other('block', block);
    if (block.type === 'thinking') return { kind: 'reasoning', text: textOf(block.thinking) };
    // encrypted Claude reasoning: nothing a person (or the template) can read
    if (block.type === 'redacted_thinking') return { kind: 'reasoning', text: '[redacted thinking]' };
    if (block.type === 'tool_use') return { kind: 'tool_call', text: textOf(block.input), name: textOf(block.name), ...idOf(block.id) };
    if (block.type === 'tool_result') {
      const text = readContent(block.content)
        .map((part) => (part.kind === 'image' ? '[image]' : part.text))
        .join('\n');
      if (block.is_error === true) return { kind: 'tool_result', text: `[error] ${text}`, isError: true, ...idOf(block.tool_use_id) };
      return { kind: 'tool_result', text, ...idOf(block.tool_use_id) };
    }
    return readContent([block])[0] as ReadablePart;
  });
}

function readResponsesInput(body: Record<string, unknown>): ReadableMessage[] {
  const messages: ReadableMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '')
    messages.push({ role: 'system', parts: [{ kind: 'text', text: body.instructions }] });
  if (typeof body.input === 'string') messages.push({ role: 'user', parts: [{ kind: 'text', text: body.input }] });
  for (const item of Array.isArray(body.input) ? body.input : []) messages.push(readResponsesItem(item));
  return messages;
}

/** One Responses API item (input or output: message, function_call, its output, reasoning ...) as a message. */
export function readResponsesItem(item: unknown): ReadableMessage {
  if (!isRecord(item)) return { role: '?', parts: [other('item', item)] };
  const type = typeof item.type === 'string' ? item.type : 'message';
  if (type === 'message') return { role: typeof item.role === 'string' ? item.role : '?', parts: readContent(item.content) };
  if (type === 'function_call' || type === 'custom_tool_call') {
    return {
      role: 'assistant',
      parts: [{ kind: 'tool_call', text: textOf(item.arguments ?? item.input), name: textOf(item.name), ...idOf(item.call_id) }],
    };
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    const text = readContent(item.output)
      .map((part) => part.text)
      .join('\n');
    return { role: 'tool', parts: [{ kind: 'tool_result', text, ...idOf(item.call_id) }] };
  }
  if (type === 'reasoning') {
    const pieces = [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])];
    const text = pieces.map((piece) => (isRecord(piece) ? textOf(piece.text) : '')).join('\n');
    return { role: 'assistant', parts: [{ kind: 'reasoning', text: text === '' ? '[encrypted reasoning]' : text }] };
  }
  return { role: typeof item.role === 'string' ? item.role : '?', parts: [other(type, item)] };
}

/** A completion's prompt: text, token ids (counted, not listed), or a list of either. */
function readPrompt(prompt: unknown): ReadableMessage[] {
  if (typeof prompt === 'string') return [{ role: 'prompt', parts: [{ kind: 'text', text: prompt }] }];
  if (Array.isArray(prompt) && prompt.every((id) => typeof id === 'number')) {
    return [{ role: 'prompt', parts: [{ kind: 'text', text: `[${prompt.length} token ids]` }] }];
  }
  return Array.isArray(prompt) ? prompt.flatMap(readPrompt) : [];
}
