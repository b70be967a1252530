import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import type { ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';

export const KIMI_TOOL_CALLS_BEGIN = '<|tool_calls_section_begin|>';
export const KIMI_TOOL_CALLS_END = '<|tool_calls_section_end|>';
export const KIMI_TOOL_CALL_BEGIN = '<|tool_call_begin|>';
export const KIMI_TOOL_CALL_END = '<|tool_call_end|>';
export const KIMI_ARGUMENT_BEGIN = '<|tool_call_argument_begin|>';

// vLLM's tool_call_regex (re.DOTALL): ID is `[^<]+:\d+`, the arguments may not cross another <|tool_call_begin|>
const TOOL_CALL_PATTERN =
  /<\|tool_call_begin\|>\s*([^<]+:\d+)\s*<\|tool_call_argument_begin\|>\s*((?:(?!<\|tool_call_begin\|>)[\s\S])*?)\s*<\|tool_call_end\|>/g;
// stream_tool_call_portion_regex and stream_tool_call_name_regex, used with re.match (Python's `.` stops at "\n")
const STREAM_PORTION_PATTERN = /^([^\n]+:\d+)\s*<\|tool_call_argument_begin\|>\s*([^\n]*)/;
const STREAM_NAME_PATTERN = /^([^\n]+:\d+)\s*/;

/**
 * The function name in a Kimi K2 call id: `functions.get_weather:0` (or `get_weather:0`) names `get_weather`.
 *
 * @example kimiToolName('functions.get_weather:0'); // 'get_weather'
 */
export function kimiToolName(id: string): string {
  return id.split(':')[0]!.split('.').at(-1)!;
}

/**
 * Reads Kimi K2 tool calls as vLLM's `kimi_k2` parser does (`KimiK2ToolParser.extract_tool_calls`,
 * vllm/entrypoints/openai/tool_parsers/kimi_k2_tool_parser.py): without `<|tool_calls_section_begin|>` the text is
 * content; otherwise each `<|tool_call_begin|>ID<|tool_call_argument_begin|>ARGS<|tool_call_end|>` is a call whose id
 * is ID as the model wrote it (`functions.NAME:IDX`, what the template writes back), its name the part of ID between
 * the last `.` and the `:`, its arguments ARGS verbatim (trimmed, not checked as JSON); the content is the text
 * before the section (null when empty).
 *
 * @example
 * parseKimiK2ToolCalls('<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>').toolCalls[0];
 * // { id: 'functions.ls:0', type: 'function', function: { name: 'ls', arguments: '{}' } }
 */
export function parseKimiK2ToolCalls(text: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  const section = text.indexOf(KIMI_TOOL_CALLS_BEGIN);
  if (section === -1) return { toolCalls: [], content: text };
  const toolCalls: ParsedToolCall[] = [...text.matchAll(TOOL_CALL_PATTERN)].map((match) => ({
    id: match[1]!,
    type: 'function',
    function: { name: kimiToolName(match[1]!), arguments: match[2]! },
  }));
  const content = text.slice(0, section);
  return { toolCalls, content: content === '' ? null : content };
}

/** Feeds the growing content text; answers what is new since the last call, or null. */
export interface KimiK2ToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams Kimi K2 tool calls as vLLM's `kimi_k2` parser does (`extract_tool_calls_streaming`), its token-id tests read
 * on text (each marker is one token, so a marker's count in the text is its count in the ids, and "the delta is one
 * token" is "the delta is exactly `<|tool_call_begin|>`"):
 * - before `<|tool_calls_section_begin|>` every delta is content; afterwards the section markers are cut out of it;
 * - outside a call (as many begins as ends, none ending in this delta) the delta is content;
 * - a new `<|tool_call_begin|>` moves the cursor; the name and the id as written go out once `ID:IDX` has come;
 * - then the arguments after `<|tool_call_argument_begin|>`, on their line, as far as they have come;
 * - a delta closing a call whose arguments were seen sends what it holds up to its last `"}`, and only when it holds
 *   one (vLLM's quirk, as for DeepSeek V3.1).
 *
 * @example
 * const stream = createKimiK2ToolCallStream();
 * stream.push('<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0'); // name ls, id functions.ls:0, index 0
 */
export function createKimiK2ToolCallStream(): KimiK2ToolCallStream {
  let previousText = '';
  let currentTool = -1;
  let nameSent = false;
  const previousCalls: Array<{ id?: string; name?: string; arguments?: string }> = [];
  return {
    push(currentText) {
      const previous = previousText;
      let deltaText = currentText.slice(previous.length);
      previousText = currentText;
      const asContent = (text: string): { content: string } | null => (text === '' ? null : { content: text });
      if (!currentText.includes(KIMI_TOOL_CALLS_BEGIN)) return asContent(deltaText);
      const deltaIsOneToken = deltaText === KIMI_TOOL_CALL_BEGIN;
      deltaText = deltaText.replaceAll(KIMI_TOOL_CALLS_BEGIN, '').replaceAll(KIMI_TOOL_CALLS_END, '');
      const previousStarts = count(previous, KIMI_TOOL_CALL_BEGIN);
      const previousEnds = count(previous, KIMI_TOOL_CALL_END);
      const starts = count(currentText, KIMI_TOOL_CALL_BEGIN);
      const ends = count(currentText, KIMI_TOOL_CALL_END);
      if (starts === ends && previousEnds === ends && !deltaText.includes(KIMI_TOOL_CALL_END)) return asContent(deltaText);
      let portion: string | null = null;
      let textPortion: string | null = null;
      if (deltaText.includes(KIMI_TOOL_CALL_END)) {
        const fullText = currentText + deltaText;
        portion = fullText.split(KIMI_TOOL_CALL_BEGIN).at(-1)!.split(KIMI_TOOL_CALL_END)[0]!.trimEnd();
        deltaText = deltaText.split(KIMI_TOOL_CALL_END)[0]!.trimEnd();
        textPortion = deltaText.split(KIMI_TOOL_CALL_END).at(-1)!.trimStart();
      }
      if (starts > ends && starts > previousStarts) {
        portion = deltaIsOneToken ? null : currentText.split(KIMI_TOOL_CALL_BEGIN).at(-1)!;
        textPortion = null;
        currentTool++;
        nameSent = false;
      } else if (starts > ends && starts === previousStarts) {
        portion = currentText.split(KIMI_TOOL_CALL_BEGIN).at(-1)!;
        textPortion = null;
      } else if (starts === ends && ends >= previousEnds) {
        if (previousCalls.length === 0) return null;
        if (truthy(previousCalls[currentTool]?.arguments)) {
          const end = deltaText.lastIndexOf('"}');
          if (end === -1) return null;
          return { toolCalls: [{ index: currentTool, function: { arguments: `${deltaText.slice(0, end)}"}` } }] };
        }
        // vLLM falls through here when no arguments were seen yet
      } else {
        return { content: deltaText.replaceAll(KIMI_TOOL_CALL_BEGIN, '').replaceAll(KIMI_TOOL_CALL_END, '') };
      }
      const call: { id?: string; name?: string; arguments?: string } = {};
      if (portion !== null && portion !== '') {
        const match = STREAM_PORTION_PATTERN.exec(portion) ?? STREAM_NAME_PATTERN.exec(portion);
        if (match === null) return null;
        call.id = match[1]!;
        call.name = kimiToolName(match[1]!);
        call.arguments = match[2] ?? '';
      }
      if (!nameSent) {
        if (!truthy(call.name)) return null;
        nameSent = true;
        return { toolCalls: [{ index: currentTool, type: 'function', id: call.id!, function: { name: call.name! } }] };
      }
      if (portion === null) return textPortion !== null ? asContent(deltaText) : null;
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
