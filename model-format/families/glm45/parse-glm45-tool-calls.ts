import { isRecord } from '../../../core/json/is-record.js';
import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import { partialTagOverlap, type DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import { makeToolCallId, type ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';

export const GLM_TOOL_CALL_START = '<tool_call>';
export const GLM_TOOL_CALL_END = '</tool_call>';
const ARG_KEY_START = '<arg_key>';
const ARG_VALUE_START = '<arg_value>';
const ARG_VALUE_END = '</arg_value>';

// vLLM's func_call_regex, func_detail_regex and func_arg_regex (all re.DOTALL)
const CALL_PATTERN = /<tool_call>[\s\S]*?<\/tool_call>/g;
const DETAIL_PATTERN = /<tool_call>([^\n]*)\n([\s\S]*)<\/tool_call>/;
const ARG_PATTERN = /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g;
const ARG_KEY_PATTERN = /<arg_key>([\s\S]*?)<\/arg_key>/g;

/**
 * Reads GLM-4.5 / 4.6 tool calls as vLLM's `glm45` parser does (`Glm4MoeModelToolParser.extract_tool_calls`,
 * vllm/tool_parsers/glm4_moe_tool_parser.py): each `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…
 * </tool_call>` is a call (one without a line break after the name is skipped); a value whose parameter the tool's
 * schema types `string` is kept verbatim, any other is read as JSON, else as a Python literal, else kept as text
 * (stripped); the arguments are `json.dumps` of those pairs. The content is the text before the first `<tool_call>`,
 * null when blank; without a call the whole text is content.
 *
 * @example
 * parseGlm45ToolCalls('<tool_call>ls\n<arg_key>path</arg_key>\n<arg_value>.</arg_value>\n</tool_call>', []).toolCalls[0].function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseGlm45ToolCalls(text: string, tools: readonly unknown[]): { toolCalls: ParsedToolCall[]; content: string | null } {
  const toolCalls: ParsedToolCall[] = [];
  for (const [block] of text.matchAll(CALL_PATTERN)) {
    const detail = DETAIL_PATTERN.exec(block);
    if (detail === null) continue;
    const name = detail[1]!.trim();
    const values: Record<string, unknown> = {};
    for (const pair of detail[2]!.matchAll(ARG_PATTERN)) {
      const key = pair[1]!.trim();
      values[key] = isStringParameter(tools, name, key) ? pair[2]! : deserialize(pair[2]!.trim());
    }
    toolCalls.push({ id: makeToolCallId(), type: 'function', function: { name, arguments: pythonJsonDumps(values) } });
  }
  if (toolCalls.length === 0) return { toolCalls: [], content: text };
  const content = text.slice(0, text.indexOf(GLM_TOOL_CALL_START));
  return { toolCalls, content: content.trim() === '' ? null : content };
}

/** Feeds the growing content text; answers what is new since the last call, or null. */
export interface Glm45ToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams GLM-4.5 / 4.6 tool calls as vLLM's `glm45` parser does (`extract_tool_calls_streaming`, its re-parse and
 * diff): without tools every delta is content; otherwise on every push the whole text is read again:
 * - content is the text outside `<tool_call>…</tool_call>` not yet sent (text between calls too), holding back what
 *   may become `<tool_call>`;
 * - each call's name goes out once (with a fresh id and `arguments: ''`) when a line break or `<arg_key>` follows it;
 * - its arguments are rebuilt as JSON from the pairs so far (an open string value JSON-escaped with no closing quote,
 *   an open non-string value as raw text, the closing `}` only once `</tool_call>` came) and the part longer than what
 *   was sent goes out.
 *
 * @example
 * const stream = createGlm45ToolCallStream(tools);
 * stream.push('<tool_call>ls\n'); // { toolCalls: [{ index: 0, id, type: 'function', function: { name: 'ls', arguments: '' } }] }
 */
export function createGlm45ToolCallStream(tools: readonly unknown[]): Glm45ToolCallStream {
  let previousText = '';
  let sentContentIndex = 0;
  const ids: string[] = [];
  const namesSent: boolean[] = [];
  const argumentsSent: string[] = [];
  return {
    push(currentText) {
      if (tools.length === 0) {
        const delta = currentText.slice(previousText.length);
        previousText = currentText;
        return delta === '' ? null : { content: delta };
      }
      previousText = currentText;
      const unsent = unsentContent(currentText, sentContentIndex);
      sentContentIndex = unsent.end;
      const toolCalls: DeltaToolCall[] = [];
      for (const [index, region] of callRegions(currentText).entries()) {
        while (ids.length <= index) {
          ids.push(makeToolCallId());
          namesSent.push(false);
          argumentsSent.push('');
        }
        const name = regionName(region.inner);
        if (name === null) break;
        if (!namesSent[index]) {
          namesSent[index] = true;
          toolCalls.push({ id: ids[index]!, type: 'function', index, function: { name, arguments: '' } });
        }
        const soFar = argumentsSoFar(name, region.inner, region.complete, tools);
        if (soFar.length > argumentsSent[index]!.length) {
          toolCalls.push({ index, function: { arguments: soFar.slice(argumentsSent[index]!.length) } });
          argumentsSent[index] = soFar;
        }
      }
      const delta: { content?: string; toolCalls?: DeltaToolCall[] } = {};
      if (unsent.text !== '') delta.content = unsent.text;
      if (toolCalls.length > 0) delta.toolCalls = toolCalls;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

/** vLLM's `_extract_content`: the unsent text outside call regions, and how far it has now been sent. */
function unsentContent(text: string, from: number): { text: string; end: number } {
  let out = '';
  let pos = from;
  while (pos < text.length) {
    const start = text.indexOf(GLM_TOOL_CALL_START, pos);
    if (start === -1) {
      const tail = text.slice(pos);
      const overlap = partialTagOverlap(tail, GLM_TOOL_CALL_START);
      out += tail.slice(0, tail.length - overlap);
      pos = text.length - overlap;
      break;
    }
    out += text.slice(pos, start);
    const end = text.indexOf(GLM_TOOL_CALL_END, start);
    if (end === -1) {
      pos = start;
      break;
    }
    pos = end + GLM_TOOL_CALL_END.length;
  }
  return { text: out, end: Math.max(pos, from) };
}

/** vLLM's `_extract_tool_call_regions`: each call's inner text, an open one without a partial `</tool_call>`. */
function callRegions(text: string): Array<{ inner: string; complete: boolean }> {
  const regions: Array<{ inner: string; complete: boolean }> = [];
  let pos = 0;
  for (;;) {
    const start = text.indexOf(GLM_TOOL_CALL_START, pos);
    if (start === -1) break;
    const innerStart = start + GLM_TOOL_CALL_START.length;
    const end = text.indexOf(GLM_TOOL_CALL_END, innerStart);
    if (end !== -1) {
      regions.push({ inner: text.slice(innerStart, end), complete: true });
      pos = end + GLM_TOOL_CALL_END.length;
      continue;
    }
    const raw = text.slice(innerStart);
    regions.push({ inner: raw.slice(0, raw.length - partialTagOverlap(raw, GLM_TOOL_CALL_END)), complete: false });
    break;
  }
  return regions;
}

/** The name: what precedes the first line break or `<arg_key>`, stripped; null until one of them came. */
function regionName(inner: string): string | null {
  const cuts = [inner.indexOf('\n'), inner.indexOf(ARG_KEY_START)].filter((at) => at !== -1);
  if (cuts.length === 0) return null;
  const name = inner.slice(0, Math.min(...cuts)).trim();
  return name === '' ? null : name;
}

/** vLLM's `_build_args_json_so_far`. */
function argumentsSoFar(name: string, inner: string, complete: boolean, tools: readonly unknown[]): string {
  const parts: string[] = [];
  for (const pair of inner.matchAll(ARG_PATTERN)) {
    const key = pair[1]!.trim();
    const value = isStringParameter(tools, name, key) ? pair[2]! : deserialize(pair[2]!.trim());
    parts.push(`${JSON.stringify(key)}: ${pythonJsonDumps(value)}`);
  }
  const lastValueStart = inner.lastIndexOf(ARG_VALUE_START);
  const lastValueEnd = inner.lastIndexOf(ARG_VALUE_END);
  if (lastValueStart !== -1 && (lastValueEnd === -1 || lastValueEnd < lastValueStart)) {
    const keys = [...inner.slice(0, lastValueStart).matchAll(ARG_KEY_PATTERN)];
    const lastKey = keys.at(-1);
    if (lastKey !== undefined) {
      const key = lastKey[1]!.trim();
      let partial = inner.slice(lastValueStart + ARG_VALUE_START.length);
      partial = partial.slice(0, partial.length - partialTagOverlap(partial, ARG_VALUE_END));
      const keyJson = JSON.stringify(key);
      const isString = isStringParameter(tools, name, key);
      if (complete) parts.push(`${keyJson}: ${pythonJsonDumps(isString ? partial : deserialize(partial.trim()))}`);
      else if (isString) parts.push(`${keyJson}: "${partial === '' ? '' : JSON.stringify(partial).slice(1, -1)}`);
      else parts.push(`${keyJson}: ${partial}`);
    }
  }
  if (parts.length === 0) return complete ? '{}' : '';
  return `{${parts.join(', ')}${complete ? '}' : ''}`;
}

/** vLLM's `_is_string_type`: the tool's schema types the parameter `string`. */
function isStringParameter(tools: readonly unknown[], name: string, key: string): boolean {
  for (const tool of tools) {
    const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : null;
    if (fn?.name !== name) continue;
    const properties = isRecord(fn.parameters) && isRecord(fn.parameters.properties) ? fn.parameters.properties : {};
    const schema = properties[key];
    return isRecord(schema) && schema.type === 'string';
  }
  return false;
}

/**
 * vLLM's `_deserialize`: `json.loads`, else `ast.literal_eval` (here its common cases: `True`, `False`, `None`, and a
 * single-quoted string without escapes), else the text itself.
 */
function deserialize(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    // not JSON: Python literals next
  }
  if (value === 'True') return true;
  if (value === 'False') return false;
  if (value === 'None') return null;
  const quoted = /^'([^'\\]*)'$/.exec(value);
  return quoted === null ? value : quoted[1];
}
