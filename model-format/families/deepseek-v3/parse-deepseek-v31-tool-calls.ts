import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import { makeToolCallId, type ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';

export const TOOL_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
export const TOOL_CALLS_END = '<｜tool▁calls▁end｜>';
export const TOOL_CALL_BEGIN = '<｜tool▁call▁begin｜>';
export const TOOL_CALL_END = '<｜tool▁call▁end｜>';
export const TOOL_SEP = '<｜tool▁sep｜>';

// vLLM's tool_call_regex; Python's `.` stops at "\n" only, hence [^\n]
const TOOL_CALL_PATTERN = /<｜tool▁call▁begin｜>([^\n]*?)<｜tool▁sep｜>([^\n]*?)<｜tool▁call▁end｜>/g;
// stream_tool_call_portion_regex, used with re.match (anchored at the start, not at the end)
const STREAM_PORTION_PATTERN = /^([^\n]*)<｜tool▁sep｜>([^\n]*)/;

/**
 * Reads DeepSeek V3.1 tool calls as vLLM's `deepseek_v31` parser does (`DeepSeekV31ToolParser.extract_tool_calls`,
 * vllm/tool_parsers/deepseekv31_tool_parser.py): without `<｜tool▁calls▁begin｜>` the text is content; otherwise every
 * `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>` on one line is a call whose arguments are ARGS verbatim
 * (not checked as JSON), and the content is the text before `<｜tool▁calls▁begin｜>` (null when empty); text after
 * the section is dropped.
 *
 * @example
 * parseDeepSeekV31ToolCalls('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{"path": "."}<｜tool▁call▁end｜><｜tool▁calls▁end｜>').toolCalls[0].function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseDeepSeekV31ToolCalls(text: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  const begin = text.indexOf(TOOL_CALLS_BEGIN);
  if (begin === -1) return { toolCalls: [], content: text };
  const toolCalls: ParsedToolCall[] = [...text.matchAll(TOOL_CALL_PATTERN)].map((match) => ({
    id: makeToolCallId(),
    type: 'function',
    function: { name: match[1]!, arguments: match[2]! },
  }));
  const content = text.slice(0, begin);
  return { toolCalls, content: content === '' ? null : content };
}

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface DeepSeekV31ToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams DeepSeek V3.1 tool calls as vLLM's `deepseek_v31` parser does (`extract_tool_calls_streaming`), with the
 * token-id tests read on text (each marker is one token in DeepSeek's vocabulary, so a marker's count in the text is
 * its count in the ids, and "the delta is one token" is "the delta is exactly the marker"):
 * - before `<｜tool▁calls▁begin｜>` every delta is content; afterwards the section markers are cut out of each delta;
 * - outside a call (as many call begins as ends, no end in this delta) the delta is content (empty ones are not sent);
 * - a new `<｜tool▁call▁begin｜>` moves the cursor; the name goes out, with a fresh id, once `<｜tool▁sep｜>` has come;
 * - then the arguments: the text after the separator, on its line, as far as it has come (the part not yet sent);
 * - a delta closing the call sends what it holds up to its last `"}` and only when it holds one (vLLM's quirk: a
 *   closing delta of `}<｜tool▁call▁end｜>` loses its `}`; one token a delta, as vLLM streams, never has that).
 *
 * @example
 * const stream = createDeepSeekV31ToolCallStream();
 * stream.push('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>'); // name ls, id, index 0
 */
export function createDeepSeekV31ToolCallStream(): DeepSeekV31ToolCallStream {
  let previousText = '';
  let currentTool = -1;
  let nameSent = false;
  const previousCalls: Array<{ name?: string; arguments?: string }> = [];
  return {
    push(currentText) {
      const previous = previousText;
      let deltaText = currentText.slice(previous.length);
      previousText = currentText;
      if (!currentText.includes(TOOL_CALLS_BEGIN)) return deltaText === '' ? null : { content: deltaText };
      const deltaIsOneToken = deltaText === TOOL_CALL_BEGIN;
      deltaText = deltaText.replaceAll(TOOL_CALLS_BEGIN, '').replaceAll(TOOL_CALLS_END, '');
      const previousStarts = count(previous, TOOL_CALL_BEGIN);
      const previousEnds = count(previous, TOOL_CALL_END);
      const starts = count(currentText, TOOL_CALL_BEGIN);
      const ends = count(currentText, TOOL_CALL_END);
      const asContent = (text: string): { content: string } | null => (text === '' ? null : { content: text });
      if (starts === ends && previousEnds === ends && !deltaText.includes(TOOL_CALL_END)) return asContent(deltaText);
      // vLLM also computes a tool-call and a text portion here, but every branch below replaces or never reads them
      // (its text portion is always None by the time it is read): only the cut delta matters
      if (deltaText.includes(TOOL_CALL_END)) deltaText = deltaText.split(TOOL_CALL_END)[0]!.trimEnd();
      let portion: string | null;
      if (starts > ends && starts > previousStarts) {
        portion = deltaIsOneToken ? null : currentText.split(TOOL_CALL_BEGIN).at(-1)!;
        currentTool++;
        nameSent = false;
      } else if (starts > ends && starts === previousStarts) {
        portion = currentText.split(TOOL_CALL_BEGIN).at(-1)!;
      } else if (starts === ends && ends >= previousEnds) {
        if (previousCalls.length === 0) return null;
        if (!truthy(previousCalls[currentTool]?.arguments)) return null;
        const end = deltaText.lastIndexOf('"}');
        if (end === -1) return null;
        return { toolCalls: [{ index: currentTool, function: { arguments: `${deltaText.slice(0, end)}"}` } }] };
      } else {
        return asContent(deltaText.replaceAll(TOOL_CALL_BEGIN, '').replaceAll(TOOL_CALL_END, ''));
      }
      const call: { name?: string; arguments?: string } = {};
      if (portion !== null && portion !== '') {
        const match = STREAM_PORTION_PATTERN.exec(portion);
        if (match === null) return null;
        call.name = match[1]!;
        call.arguments = match[2]!;
      }
      if (!nameSent) {
        if (!truthy(call.name)) return null;
        nameSent = true;
        return { toolCalls: [{ index: currentTool, type: 'function', id: makeToolCallId(), function: { name: call.name! } }] };
      }
      if (portion === null) return null;
      if (previousCalls.length <= currentTool) previousCalls.push({});
      const before = previousCalls[currentTool]!.arguments;
      const now = call.arguments;
      let delta: { toolCalls: DeltaToolCall[] } | null = null;
      if (truthy(now) && !truthy(before)) delta = { toolCalls: [{ index: currentTool, function: { arguments: now! } }] };
      else if (truthy(now) && truthy(before) && now !== before && now!.length > before!.length && now!.startsWith(before!)) {
        delta = { toolCalls: [{ index: currentTool, function: { arguments: now!.slice(before!.length) } }] };
      }
      if (currentTool === previousCalls.length - 1) previousCalls[currentTool] = call;
      else previousCalls.push(call);
      return delta;
    },
  };
}

function count(text: string, marker: string): number {
  return text.split(marker).length - 1;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}
