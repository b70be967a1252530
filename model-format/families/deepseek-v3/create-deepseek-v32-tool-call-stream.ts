import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import { partialTagOverlap } from '../qwen3/create-hermes-tool-call-stream.js';
import { extractTypesFromSchema, findToolProperties } from '../coerce-to-schema-type.js';
import { convertDsmlParameters, DSML_CALLS_END, DSML_CALLS_START, DSML_INVOKE_END, DSML_PARAMETER_END } from './parse-deepseek-v32-tool-calls.js';
import { randomBytes } from 'node:crypto';
import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';

// vLLM's invoke_start_regex and parameter_start_regex, used with re.match (anchored at the buffer's start)
const INVOKE_START = /^<｜DSML｜invoke\s+name="([^"]+)"\s*>/;
const PARAMETER_START = /^<｜DSML｜parameter\s+name="([^"]+)"\s+string="(true|false)"\s*>/;

/** How an open parameter's value goes out: as it comes (`string`: JSON-escaped, `raw`: verbatim) or whole at its end. */
type ParameterMode = 'string' | 'raw' | 'buffered' | 'wrapper';

interface OpenCall {
  index: number;
  name: string;
  argumentsStarted: boolean;
  parameter: { name: string; isString: boolean; mode: ParameterMode; parts: string[] } | null;
}

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface DeepSeekV32ToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams DeepSeek V3.2's DSML tool calls as vLLM's `deepseek_v32` parser does (`extract_tool_calls_streaming` and
 * `_process_streaming_buffer`, vllm/tool_parsers/deepseekv32_tool_parser.py), on a buffer of the text not yet read:
 * - outside a section the text is content, except a tail that may begin `<｜DSML｜function_calls>` (held back);
 * - in a section, each `<｜DSML｜invoke name="NAME">` starts a call: its id (`call_` and 24 hex digits), name and
 *   empty arguments go out at once; `</｜DSML｜invoke>` closes it with `}` (`{}` for a call without parameters), and
 *   `</｜DSML｜function_calls>` ends the section (text after it is content again);
 * - each parameter adds `{` (the first) or `,`, its JSON key and `:`; then a `string="true"` value streams as a JSON
 *   string (escaped as it comes, `"` around it), a value the schema types only `object`/`array` streams verbatim, and
 *   any other (scalars, unions, untyped) goes out whole once `</｜DSML｜parameter>` came, coerced as the whole parse does;
 *   a lone first `arguments`/`input` wrapper the schema does not name is held whole and unwrapped the same way;
 * - text inside a section that is none of these waits (vLLM reads no further until it is).
 *
 * @example
 * const stream = createDeepSeekV32ToolCallStream([]);
 * stream.push('<｜DSML｜function_calls>\n<｜DSML｜invoke name="ls">'); // name ls, id call_…, arguments ''
 */
export function createDeepSeekV32ToolCallStream(tools: readonly unknown[]): DeepSeekV32ToolCallStream {
  let seen = 0;
  let buffer = '';
  let inSection = false;
  let nextIndex = 0;
  let call: OpenCall | null = null;
  let content = '';
  let deltas = new Map<number, DeltaToolCall>();

  const addArguments = (index: number, text: string): void => {
    const delta = deltas.get(index) ?? { index, function: {} };
    delta.function.arguments = (delta.function.arguments ?? '') + text;
    deltas.set(index, delta);
  };
  const addParameterPrefix = (open: OpenCall, key: string, asString: boolean): void => {
    addArguments(open.index, `${open.argumentsStarted ? ',' : '{'}${JSON.stringify(key)}:${asString ? '"' : ''}`);
    open.argumentsStarted = true;
  };
  const finishBuffered = (open: OpenCall): void => {
    const parameter = open.parameter!;
    const single = new Map([[parameter.name, { value: parameter.parts.join(''), isString: parameter.isString }]]);
    for (const [key, value] of convertDsmlParameters(open.name, single, tools)) {
      addParameterPrefix(open, key, false);
      addArguments(open.index, pythonJsonDumps(value));
    }
  };
  const properties = (open: OpenCall): Record<string, unknown> => findToolProperties(tools, open.name);

  /** One step on the buffer: true to go on, false to wait for more text. */
  const step = (): boolean => {
    if (!inSection) {
      const start = buffer.indexOf(DSML_CALLS_START);
      if (start === -1) {
        const sendable = buffer.length - partialTagOverlap(buffer, DSML_CALLS_START);
        content += buffer.slice(0, sendable);
        buffer = buffer.slice(sendable);
        return false;
      }
      content += buffer.slice(0, start);
      buffer = buffer.slice(start + DSML_CALLS_START.length);
      inSection = true;
      return true;
    }
    if (call === null) return stepBetweenCalls();
    if (call.parameter !== null) return stepInParameter(call);
    return stepInCall(call);
  };

  const stepBetweenCalls = (): boolean => {
    if (skipBlanks()) return true;
    if (buffer.startsWith(DSML_CALLS_END)) {
      buffer = buffer.slice(DSML_CALLS_END.length);
      inSection = false;
      return true;
    }
    const match = INVOKE_START.exec(buffer);
    if (match === null) return false;
    buffer = buffer.slice(match[0].length);
    call = { index: nextIndex++, name: match[1]!, argumentsStarted: false, parameter: null };
    deltas.set(call.index, { index: call.index, id: streamedCallId(), type: 'function', function: { name: call.name, arguments: '' } });
    return true;
  };

  const stepInCall = (open: OpenCall): boolean => {
    if (skipBlanks()) return true;
    if (buffer.startsWith(DSML_INVOKE_END)) {
      buffer = buffer.slice(DSML_INVOKE_END.length);
      addArguments(open.index, open.argumentsStarted ? '}' : '{}');
      call = null;
      return true;
    }
    const match = PARAMETER_START.exec(buffer);
    if (match === null) return false;
    buffer = buffer.slice(match[0].length);
    const [name, isString] = [match[1]!, match[2] === 'true'];
    const schema = properties(open);
    let mode: ParameterMode;
    if (!open.argumentsStarted && Object.keys(schema).length > 0 && (name === 'arguments' || name === 'input') && !Object.hasOwn(schema, name)) {
      mode = 'wrapper';
    } else if (isString) mode = 'string';
    else {
      const types = extractTypesFromSchema(Object.hasOwn(schema, name) ? schema[name] : undefined);
      mode = types.every((type) => type === 'object' || type === 'array') ? 'raw' : 'buffered';
    }
    if (mode === 'string' || mode === 'raw') addParameterPrefix(open, name, mode === 'string');
    open.parameter = { name, isString, mode, parts: [] };
    return true;
  };

  const stepInParameter = (open: OpenCall): boolean => {
    const parameter = open.parameter!;
    const end = buffer.indexOf(DSML_PARAMETER_END);
    const take = end === -1 ? buffer.length - partialTagOverlap(buffer, DSML_PARAMETER_END) : end;
    const raw = buffer.slice(0, take);
    buffer = buffer.slice(end === -1 ? take : end + DSML_PARAMETER_END.length);
    if (parameter.mode === 'buffered' || parameter.mode === 'wrapper') parameter.parts.push(raw);
    else if (raw !== '' || end !== -1) addArguments(open.index, parameter.mode === 'string' ? jsonEscape(raw) + (end === -1 ? '' : '"') : raw);
    if (end === -1) return false;
    if (parameter.mode === 'buffered' || parameter.mode === 'wrapper') finishBuffered(open);
    open.parameter = null;
    return true;
  };

  const skipBlanks = (): boolean => {
    const blanks = buffer.length - buffer.trimStart().length;
    buffer = buffer.slice(blanks);
    return blanks > 0;
  };

  return {
    push(currentText) {
      buffer += currentText.slice(seen);
      seen = currentText.length;
      while (step());
      const delta: { content?: string; toolCalls?: DeltaToolCall[] } = {};
      if (content !== '') delta.content = content;
      if (deltas.size > 0) delta.toolCalls = [...deltas.values()];
      content = '';
      deltas = new Map();
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

/** A string's JSON escaping without the quotes (vLLM's `json.dumps(text, ensure_ascii=False)[1:-1]`). */
function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** vLLM's `_generate_tool_call_id` for DSML streams: `call_` and the first 24 hex digits of a uuid4. */
function streamedCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
