import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import { makeToolCallId } from '../qwen3/parse-hermes-tool-calls.js';
import { TOOL_CALL_BEGIN, TOOL_CALL_END, TOOL_CALLS_BEGIN, TOOL_CALLS_END } from './parse-deepseek-v31-tool-calls.js';

// stream_tool_call_portion_regex and stream_tool_call_name_regex, used with re.match (anchored at the start only);
// Python's `.` stops at "\n" only, hence [^\n]
const STREAM_PORTION_PATTERN = /^([^\n]*)<｜tool▁sep｜>([^\n]*)\n```json\n([^\n]*[^\n`])/;
const STREAM_NAME_PATTERN = /^([^\n]*)<｜tool▁sep｜>([^\n]*)\n/;

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface DeepSeekV3ToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

interface StreamedCall {
  name?: string;
  arguments?: string;
}

/**
 * Streams the first DeepSeek V3 syntax as vLLM's `deepseek_v3` parser does (`extract_tool_calls_streaming`,
 * vllm/tool_parsers/deepseekv3_tool_parser.py), its token-id tests read on text as for V3.1 (each marker is one token
 * of DeepSeek's vocabulary; "the delta is one token" is "the delta is exactly the marker"):
 * - before `<｜tool▁calls▁begin｜>` every delta is content; afterwards the section markers are cut out of each delta;
 * - outside a call (as many call begins as ends, no end in this delta) the delta is content: the "\n" the model writes
 *   between parallel calls goes out as content (empty deltas are not sent);
 * - a new `<｜tool▁call▁begin｜>` moves the cursor; the name (the rest of the line after `<｜tool▁sep｜>`) goes out, with
 *   a fresh id, once that line has ended;
 * - then the arguments: the line after "```json" as far as it has come, up to its last character that is no backtick
 *   (the part not yet sent);
 * - a delta closing the call sends what it holds up to its last `"}` when the call had arguments; when it had none
 *   yet, the call's text up to its end is read once more (vLLM's `current_text + delta_text`, cut at the end marker).
 *
 * @example
 * const stream = createDeepSeekV3ToolCallStream();
 * stream.push('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n'); // name ls, id, index 0
 */
export function createDeepSeekV3ToolCallStream(): DeepSeekV3ToolCallStream {
  let previousText = '';
  let currentTool = -1;
  let nameSent = false;
  const previousCalls: StreamedCall[] = [];
  return {
    push(currentText) {
      const previous = previousText;
      const rawDelta = currentText.slice(previous.length);
      previousText = currentText;
      if (!currentText.includes(TOOL_CALLS_BEGIN)) return rawDelta === '' ? null : { content: rawDelta };
      let deltaText = rawDelta.replaceAll(TOOL_CALLS_BEGIN, '').replaceAll(TOOL_CALLS_END, '');
      const previousStarts = count(previous, TOOL_CALL_BEGIN);
      const previousEnds = count(previous, TOOL_CALL_END);
      const starts = count(currentText, TOOL_CALL_BEGIN);
      const ends = count(currentText, TOOL_CALL_END);
      if (starts === ends && previousEnds === ends && !deltaText.includes(TOOL_CALL_END)) return asContent(deltaText);
      // vLLM's text portion is only ever read where the tool-call portion is unset, and then it is unset too: not kept
      let portion: string | null = null;
      if (deltaText.includes(TOOL_CALL_END)) {
        portion = `${currentText}${deltaText}`.split(TOOL_CALL_BEGIN).at(-1)!.split(TOOL_CALL_END)[0]!.trimEnd();
        deltaText = deltaText.split(TOOL_CALL_END)[0]!.trimEnd();
      }
      if (starts > ends && starts > previousStarts) {
        portion = rawDelta === TOOL_CALL_BEGIN ? null : currentText.split(TOOL_CALL_BEGIN).at(-1)!;
        currentTool++;
        nameSent = false;
      } else if (starts > ends && starts === previousStarts) {
        portion = currentText.split(TOOL_CALL_BEGIN).at(-1)!;
      } else if (starts === ends && ends >= previousEnds) {
        if (previousCalls.length === 0) return null;
        // vLLM indexes its list here; a call not yet in it raises, and its `except` answers None
        if (currentTool >= previousCalls.length) return null;
        if (truthy(previousCalls[currentTool]!.arguments)) {
          const end = deltaText.lastIndexOf('"}');
          if (end === -1) return null;
          return { toolCalls: [{ index: currentTool, function: { arguments: `${deltaText.slice(0, end)}"}` } }] };
        }
        // no arguments streamed yet: vLLM falls through and reads the call's portion below
      } else {
        return asContent(deltaText.replaceAll(TOOL_CALL_BEGIN, '').replaceAll(TOOL_CALL_END, ''));
      }
      const call = portion === null || portion === '' ? {} : readPortion(portion);
      if (call === null) return null;
      if (!nameSent) {
        if (!truthy(call.name)) return null;
        nameSent = true;
        return { toolCalls: [{ index: currentTool, type: 'function', id: makeToolCallId(), function: { name: call.name! } }] };
      }
      if (portion === null) return null;
      return diffArguments(previousCalls, currentTool, call);
    },
  };
}

/** The name and arguments so far of a call's text (after its `<｜tool▁call▁begin｜>`); null: not even the name line yet. */
function readPortion(portion: string): StreamedCall | null {
  const whole = STREAM_PORTION_PATTERN.exec(portion);
  if (whole !== null) return { name: whole[2]!, arguments: whole[3]! };
  const named = STREAM_NAME_PATTERN.exec(portion);
  return named === null ? null : { name: named[2]!, arguments: '' };
}

/** vLLM's diff of the call's arguments against what the last delta saw; the call then becomes that. */
function diffArguments(previousCalls: StreamedCall[], currentTool: number, call: StreamedCall): { toolCalls: DeltaToolCall[] } | null {
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
}

function asContent(text: string): { content: string } | null {
  return text === '' ? null : { content: text };
}

function count(text: string, marker: string): number {
  return text.split(marker).length - 1;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}
