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
  for (const call of calls) {
    const written = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    const start = text.length;
    text += `${CALL_BEGIN}${call.name}${SEP}`;
    const argumentsStart = text.length;
    text += written;
    const argumentsEnd = text.length;
    text += CALL_END;
    toolCalls.push({
      name: call.name,
      argumentsText: written,
      start,
      nameEnd: argumentsStart,
      argumentsStart,
      argumentsEnd,
      jsonEnd: argumentsEnd,
      end: text.length,
    });
  }
  if (calls.length > 0) text += CALLS_END;
  return { text, think, contentStart, toolCalls, toolCallsMarker: CALLS_BEGIN, toolCallsStart, argumentsAsWritten: true };
}
