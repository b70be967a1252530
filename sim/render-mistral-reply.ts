import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const TOOL_CALLS = '[TOOL_CALLS]';

/**
 * Writes a reply as a Mistral model with a tokenizer before v11 generates it (the simulator's own writer, from the
 * format vLLM's examples/tool_chat_template_mistral.jinja renders back): the content, then, with tool calls,
 * `[TOOL_CALLS] [{"name": "…", "arguments": {…}}, …]`, parallel calls in the one list (object arguments printed like
 * `json.dumps`). No reasoning: a reply's reasoning is not written. The end-of-turn token (`</s>`) is the tokenizer's
 * EOS, added by the caller.
 *
 * @example
 * renderMistralReply({ toolCalls: [{ name: 'ls', arguments: {} }] }).text; // '[TOOL_CALLS] [{"name": "ls", "arguments": {}}]'
 */
export function renderMistralReply(reply: SimReply): ReplyLayout {
  if (reply.text !== undefined) return contentLayout(reply.text);
  let text = reply.content ?? '';
  const calls = reply.toolCalls ?? [];
  const toolCalls: RenderedToolCall[] = [];
  if (calls.length > 0) text += `${TOOL_CALLS} [`;
  for (const [index, call] of calls.entries()) {
    if (index > 0) text += ', ';
    const written = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    const start = text.length;
    text += `{"name": "${call.name}"`;
    const nameEnd = text.length;
    text += ', "arguments": ';
    const argumentsStart = text.length;
    text += written;
    const argumentsEnd = text.length;
    text += '}';
    toolCalls.push({ name: call.name, argumentsText: written, start, nameEnd, argumentsStart, argumentsEnd, jsonEnd: text.length, end: text.length });
  }
  if (calls.length > 0) text += ']';
  return { text, think: null, contentStart: 0, toolCalls };
}
