import { makeToolCallId, type ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';
import { TOOL_CALLS_BEGIN } from './parse-deepseek-v31-tool-calls.js';

/** What the first DeepSeek V3 template writes before a call's name: `'<｜tool▁sep｜>' + tool['function']['name']`. */
export const V3_TOOL_SYNTAX = "'<｜tool▁sep｜>' + tool['function']['name']";

// vLLM's tool_call_regex (greedy groups); Python's `.` stops at "\n" only, hence [^\n]: the type and the name sit on
// the call's first line, the arguments on the line after "```json"
const TOOL_CALL_PATTERN = /<｜tool▁call▁begin｜>([^\n]*)<｜tool▁sep｜>([^\n]*)\n```json\n([^\n]*)\n```<｜tool▁call▁end｜>/g;

/**
 * Reads the first DeepSeek V3 syntax (DeepSeek-V3, V3-0324, R1-0528) as vLLM's `deepseek_v3` tool parser does
 * (`DeepSeekV3ToolParser.extract_tool_calls`, vllm/tool_parsers/deepseekv3_tool_parser.py): without
 * `<｜tool▁calls▁begin｜>` the text is content; otherwise every
 * `<｜tool▁call▁begin｜>TYPE<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>` is a call whose arguments are ARGS
 * verbatim (one line, not checked as JSON), and the content is the text before `<｜tool▁calls▁begin｜>` (null when
 * empty). A TYPE other than `function` fails vLLM's `ToolCall` model (`type: Literal["function"]`), and its `except`
 * then answers the whole text as content.
 *
 * @example
 * parseDeepSeekV3ToolCalls('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{"path": "."}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>').toolCalls[0].function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseDeepSeekV3ToolCalls(text: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  const begin = text.indexOf(TOOL_CALLS_BEGIN);
  if (begin === -1) return { toolCalls: [], content: text };
  const matches = [...text.matchAll(TOOL_CALL_PATTERN)];
  if (matches.some((match) => match[1] !== 'function')) return { toolCalls: [], content: text };
  const toolCalls: ParsedToolCall[] = matches.map((match) => ({
    id: makeToolCallId(),
    type: 'function',
    function: { name: match[2]!, arguments: match[3]! },
  }));
  const content = text.slice(0, begin);
  return { toolCalls, content: content === '' ? null : content };
}
