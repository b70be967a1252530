import type { ConversationMessage } from '../viewer-api.js';
import type { ReadableMessage } from './call-view/readable-message.js';

/** Where a message came from: the call whose request first carried it, or whose reply it is. */
export interface MessageOrigin {
  callId: string;
  fromResponse: boolean;
}

/**
 * A message read by the call-view readers as the pages show it: its texts joined, its reasoning, its tool calls;
 * each tool result becomes a `tool` message of its own (an Anthropic user turn may carry several), so every result
 * names the call it answers.
 *
 * @example toConversationMessages({ role: 'tool', parts: [{ kind: 'tool_result', id: 'c1', text: '42' }] }, origin)
 * // [{ role: 'tool', text: '42', toolCallId: 'c1', isError: false, ... }]
 */
export function toConversationMessages(message: ReadableMessage, origin: MessageOrigin): ConversationMessage[] {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ConversationMessage['toolCalls'] = [];
  const results: ConversationMessage[] = [];
  for (const part of message.parts) {
    if (part.kind === 'text') texts.push(part.text);
    else if (part.kind === 'reasoning') reasoning.push(part.text);
    else if (part.kind === 'tool_call') toolCalls.push({ id: part.id ?? null, name: part.name ?? '?', arguments: part.text });
    else if (part.kind === 'tool_result') {
      const isError = part.isError === true;
      const text = isError && part.text.startsWith('[error] ') ? part.text.slice('[error] '.length) : part.text;
      results.push(emptyMessage('tool', origin, { text, toolCallId: part.id ?? null, isError }));
    } else if (part.kind === 'image') texts.push('[image]');
    else texts.push(part.name === undefined ? part.text : `[${part.name}] ${part.text}`);
  }
  const hasOwn = texts.length > 0 || reasoning.length > 0 || toolCalls.length > 0 || results.length === 0;
  const own = emptyMessage(message.role, origin, {
    text: texts.join('\n'),
    reasoning: reasoning.length === 0 ? null : reasoning.join('\n'),
    toolCalls,
  });
  // a `tool` message is one result: keep its role and the id it answers on the one message
  if (message.role === 'tool' && results.length === 1 && !hasOwn) return results;
  return hasOwn ? [own, ...results] : results;
}

function emptyMessage(role: string, origin: MessageOrigin, fields: Partial<ConversationMessage>): ConversationMessage {
  return {
    role,
    text: '',
    reasoning: null,
    toolCalls: [],
    toolCallId: null,
    isError: false,
    callId: origin.callId,
    fromResponse: origin.fromResponse,
    ...fields,
  };
}
