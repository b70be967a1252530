import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';
const THINK_END = '</think>';

/**
 * Writes a reply as DeepSeek V3.1 / V3.2 generates it (the simulator's own writer, from the format vLLM's
 * examples/tool_chat_template_deepseekv31.jinja renders back): with thinking on (the prompt ends `<think>`) the
 * reasoning, then `</think>`; the content; then the calls, each `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>`
 * chained with no separator inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>` (object arguments printed like the
 * template's `tojson`). The end-of-turn token (`<｜end▁of▁sentence｜>`) is the tokenizer's EOS, added by the caller.
 * As vLLM's `deepseek_v31` parser reads it (deepseekv31_tool_parser.py, `extract_tool_calls`), the content ends at
 * `<｜tool▁calls▁begin｜>` and the arguments are reported as written.
 *
 * @example
 * renderDeepSeekV3Reply({ toolCalls: [{ name: 'ls', arguments: {} }] }, { thinking: false }).text;
 * // '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
 */
export function renderDeepSeekV3Reply(reply: SimReply, options: { thinking: boolean }): ReplyLayout {
  return renderDeepSeekCalls(reply, options, V31_CALL);
}

/**
 * How one DeepSeek syntax writes a call inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`: the text up to the end of
 * its name, the text between that and the arguments, the text after them, and what stands between two calls.
 */
export interface DeepSeekCallShape {
  head(name: string): string;
  beforeArguments: string;
  tail: string;
  between: string;
}

const V31_CALL: DeepSeekCallShape = { head: (name) => `${CALL_BEGIN}${name}${SEP}`, beforeArguments: '', tail: CALL_END, between: '' };

/**
 * A DeepSeek reply (reasoning, content, then the calls in `shape`'s syntax) with where each part sits; the writer
 * behind both DeepSeek V3 syntaxes (this file's V3.1 one, render-deepseek-v3-first-reply.ts's first one).
 *
 * @example renderDeepSeekCalls({ content: 'Hi' }, { thinking: false }, shape).text // 'Hi'
 */
export function renderDeepSeekCalls(reply: SimReply, options: { thinking: boolean }, shape: DeepSeekCallShape): ReplyLayout {
  if (reply.text !== undefined) return contentLayout(reply.text, CALLS_BEGIN);
  const opening = writeReasoning(reply, options, '', THINK_END);
  let { text } = opening;
  const { think } = opening;
  const contentStart = text.length;
  text += reply.content ?? '';
  const calls = reply.toolCalls ?? [];
  const toolCalls: RenderedToolCall[] = [];
  const toolCallsStart = text.length;
  if (calls.length > 0) text += CALLS_BEGIN;
  for (const [index, call] of calls.entries()) {
    if (index > 0) text += shape.between;
    const written = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    const start = text.length;
    text += shape.head(call.name);
    const nameEnd = text.length;
    text += shape.beforeArguments;
    const argumentsStart = text.length;
    text += written;
    const argumentsEnd = text.length;
    text += shape.tail;
    toolCalls.push({
      name: call.name,
      argumentsText: written,
      start,
      nameEnd,
      argumentsStart,
      argumentsEnd,
      jsonEnd: argumentsEnd,
      end: text.length,
    });
  }
  if (calls.length > 0) text += CALLS_END;
  return { text, think, contentStart, toolCalls, toolCallsMarker: CALLS_BEGIN, toolCallsStart, argumentsAsWritten: true };
}
