import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import { isRecord } from '../../../core/json/is-record.js';
import { coerceToSchemaType, extractTypesFromSchema, findToolProperties } from '../coerce-to-schema-type.js';
import { makeToolCallId, type ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';

// DeepSeek V3.2's DSML markup; `｜` is U+FF5C. vLLM notes these are not special tokens in V3.2's vocabulary
export const DSML_CALLS_START = '<｜DSML｜function_calls>';
export const DSML_CALLS_END = '</｜DSML｜function_calls>';
export const DSML_INVOKE_END = '</｜DSML｜invoke>';
export const DSML_PARAMETER_END = '</｜DSML｜parameter>';
// vLLM's tool_call_complete_regex, invoke_complete_regex and parameter_complete_regex (all DOTALL)
const SECTION_PATTERN = /<｜DSML｜function_calls>([\s\S]*?)<\/｜DSML｜function_calls>/g;
const INVOKE_PATTERN = /<｜DSML｜invoke\s+name="([^"]+)"\s*>([\s\S]*?)<\/｜DSML｜invoke>/g;
const PARAMETER_PATTERN = /<｜DSML｜parameter\s+name="([^"]+)"\s+string="(true|false)"\s*>([\s\S]*?)<\/｜DSML｜parameter>/g;
// a model sometimes wraps all its arguments in one of these (vLLM's _repair_param_dict)
const WRAPPER_NAMES = ['arguments', 'input'] as const;

/**
 * Reads DeepSeek V3.2's DSML tool calls as vLLM's `deepseek_v32` parser does (`DeepSeekV32ToolParser.extract_tool_calls`,
 * vllm/tool_parsers/deepseekv32_tool_parser.py): without `<｜DSML｜function_calls>` the text is content; otherwise each
 * complete section's `<｜DSML｜invoke name="NAME">` blocks are the calls, their
 * `<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>` the arguments (see `convertDsmlParameters`),
 * written like `json.dumps`. The content is the text before the first section (null when it starts the text); text
 * after a section is dropped. A section with no complete call leaves the whole text content.
 *
 * @example
 * parseDeepSeekV32ToolCalls('<｜DSML｜function_calls>\n<｜DSML｜invoke name="ls">\n<｜DSML｜parameter name="path" string="true">.</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>', []).toolCalls[0].function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseDeepSeekV32ToolCalls(text: string, tools: readonly unknown[]): { toolCalls: ParsedToolCall[]; content: string | null } {
  if (!text.includes(DSML_CALLS_START)) return { toolCalls: [], content: text };
  const toolCalls: ParsedToolCall[] = [];
  for (const section of text.matchAll(SECTION_PATTERN)) {
    for (const invoke of section[1]!.matchAll(INVOKE_PATTERN)) {
      const name = invoke[1]!;
      const parameters = new Map<string, DsmlParameter>();
      for (const parameter of invoke[2]!.matchAll(PARAMETER_PATTERN)) {
        parameters.set(parameter[1]!, { value: parameter[3]!, isString: parameter[2] === 'true' });
      }
      const converted = convertDsmlParameters(name, parameters, tools);
      toolCalls.push({ id: makeToolCallId(), type: 'function', function: { name, arguments: dumpParameters(converted) } });
    }
  }
  if (toolCalls.length === 0) return { toolCalls: [], content: text };
  const start = text.indexOf(DSML_CALLS_START);
  return { toolCalls, content: start > 0 ? text.slice(0, start) : null };
}

/** One parameter's raw text and its `string` attribute. */
export interface DsmlParameter {
  value: string;
  isString: boolean;
}

/**
 * A call's parameters as vLLM's `_convert_params_with_schema` makes them: a `string="true"` value is the text itself;
 * any other is coerced to the types the tool's schema gives that parameter (`coerceToSchemaType`; a parameter the schema
 * does not name, or a request without tools, is `string`, so its text stays text). Then `_repair_param_dict`: a lone
 * `arguments` or `input` parameter the schema does not name, holding an object (or its JSON text) whose keys the schema
 * all names, is replaced by that object. Keys keep their order (a Map: an object would put number-like keys first).
 *
 * @example convertDsmlParameters('f', new Map([['n', { value: '5', isString: false }]]), []) // Map { 'n' => '5' }
 */
export function convertDsmlParameters(name: string, parameters: ReadonlyMap<string, DsmlParameter>, tools: readonly unknown[]): Map<string, unknown> {
  const properties = findToolProperties(tools, name);
  const converted = new Map<string, unknown>();
  for (const [key, { value, isString }] of parameters) {
    const schema = Object.hasOwn(properties, key) ? properties[key] : {};
    converted.set(key, isString ? value : coerceToSchemaType(value, extractTypesFromSchema(schema)));
  }
  return unwrapWrapper(converted, properties);
}

function unwrapWrapper(parameters: Map<string, unknown>, properties: Record<string, unknown>): Map<string, unknown> {
  for (const wrapper of WRAPPER_NAMES) {
    if (parameters.size !== 1 || !parameters.has(wrapper) || Object.hasOwn(properties, wrapper)) continue;
    let inner = parameters.get(wrapper);
    if (typeof inner === 'string') {
      try {
        inner = JSON.parse(inner) as unknown;
      } catch {
        return parameters;
      }
    }
    if (isRecord(inner) && Object.keys(inner).every((key) => Object.hasOwn(properties, key))) return new Map(Object.entries(inner));
  }
  return parameters;
}

/**
 * The parameters as Python's `json.dumps(params, ensure_ascii=False)` writes a dict, in their order.
 *
 * @example dumpParameters(new Map([['b', 1], ['a', 'x']])) // '{"b": 1, "a": "x"}'
 */
export function dumpParameters(parameters: ReadonlyMap<string, unknown>): string {
  return `{${[...parameters].map(([key, value]) => `${JSON.stringify(key)}: ${pythonJsonDumps(value)}`).join(', ')}}`;
}
