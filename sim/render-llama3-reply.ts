import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

/**
 * Writes a reply as Llama 3.1/3.2/3.3 generates it with JSON tool calling (the simulator's own writer, from Meta's
 * format as vLLM's examples/tool_chat_template_llama3.1_json.jinja renders it back): a turn with tool calls is only
 * the calls, each `{"name": "…", "parameters": {…}}` (object arguments printed like the template's `tojson`), joined
 * with "; " when there are several (the JSON templates take one call per turn); a turn without is its content. No
 * reasoning: Llama 3 has none, so a reply's reasoning is not written. The end-of-turn token (`<|eot_id|>`) is the
 * tokenizer's EOS, added by the caller. With `pythonTag`, a turn with tool calls is written as Llama 3.1 may write it
 * with `Environment: ipython` in the system prompt (which the JSON templates write whenever tools are given; Meta's 3.1
 * prompt format: `<|python_tag|>` opens a tool call, `<|eom_id|>` ends a message that waits for a tool): the calls
 * after `<|python_tag|>` (`openToken`), the turn ended by `<|eom_id|>` (`endToken`). Both are special tokens, so
 * neither is in the text (vLLM skips special tokens in output text); the caller puts their ids around the text's.
 *
 * @example
 * renderLlama3Reply({ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }).text; // '{"name": "ls", "parameters": {"path": "."}}'
 */
export function renderLlama3Reply(reply: SimReply): ReplyLayout & { openToken?: string; endToken?: string } {
  if (reply.text !== undefined) return contentLayout(reply.text);
  const calls = reply.toolCalls ?? [];
  if (calls.length === 0) return contentLayout(reply.content ?? '');
  const layout = toolCallLayout(calls);
  return reply.pythonTag === true ? { ...layout, openToken: '<|python_tag|>', endToken: '<|eom_id|>' } : layout;
}

function toolCallLayout(calls: NonNullable<SimReply['toolCalls']>): ReplyLayout {
  let text = '';
  const toolCalls: RenderedToolCall[] = [];
  for (const [index, call] of calls.entries()) {
    if (index > 0) text += '; ';
    const written = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    const start = text.length;
    text += `{"name": "${call.name}`;
    const nameEnd = text.length + 1;
    text += '", "parameters": ';
    const argumentsStart = text.length;
    text += written;
    const argumentsEnd = text.length;
    text += '}';
    toolCalls.push({ name: call.name, argumentsText: written, start, nameEnd, argumentsStart, argumentsEnd, jsonEnd: text.length, end: text.length });
  }
  return { text, think: null, contentStart: 0, toolCalls };
}
