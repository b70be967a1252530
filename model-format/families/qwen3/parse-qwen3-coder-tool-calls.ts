import { makeToolCallId, type ParsedToolCall } from './parse-hermes-tool-calls.js';
import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import { partialTagOverlap, type DeltaToolCall } from './create-hermes-tool-call-stream.js';
import { isRecord } from '../../../core/json/is-record.js';

const TOOL_CALL_START = '<tool_call>';
const FUNCTION_PATTERN = /<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/;
const PARAMETER_PATTERN = /<parameter=([^>\n]+)>\n?([\s\S]*?)\n?<\/parameter>/g;

/**
 * Qwen3-Coder's XML tool calls, as vLLM's `qwen3_coder` parser reads them:
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`. Values are
 * text; each is converted by the tool's JSON schema (strings stay text; numbers, booleans, objects and arrays are
 * parsed; `null` is null), and `arguments` is dumped like Python's `json.dumps`. The content is the text before
 * the first call.
 *
 * @example parseQwen3CoderToolCalls('<tool_call>\n<function=ls>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>', tools)
 */
export function parseQwen3CoderToolCalls(text: string, tools: readonly unknown[]): { toolCalls: ParsedToolCall[]; content: string | null } {
  const start = firstCallAt(text);
  if (start === -1) return { toolCalls: [], content: text };
  const toolCalls: ParsedToolCall[] = [];
  for (const block of callBlocks(text.slice(start))) {
    const call = readFunction(block, tools);
    if (call !== null) toolCalls.push({ id: makeToolCallId(), type: 'function', function: call });
  }
  if (toolCalls.length === 0) return { toolCalls: [], content: text };
  const content = text.slice(0, start);
  return { toolCalls, content: content === '' ? null : content };
}

/**
 * The streaming counterpart, fed the growing content text: content before the first call (holding back what may
 * become `<tool_call>`), then each call whole once its `</function>` arrived (name, then all its arguments).
 *
 * @example const stream = createQwen3CoderToolCallStream(tools); stream.push(contentSoFar)
 */
export function createQwen3CoderToolCallStream(tools: readonly unknown[]): {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
} {
  let sentContent = 0;
  let sentCalls = 0;
  return {
    push(currentText) {
      const start = firstCallAt(currentText);
      const sendable =
        start !== -1
          ? start
          : currentText.length - Math.max(partialTagOverlap(currentText, TOOL_CALL_START), partialTagOverlap(currentText, '<function='));
      const delta: { content?: string; toolCalls?: DeltaToolCall[] } = {};
      if (sendable > sentContent) {
        delta.content = currentText.slice(sentContent, sendable);
        sentContent = sendable;
      }
      if (start !== -1) {
        const finished = callBlocks(currentText.slice(start)).filter((block) => block.includes('</function>'));
        const toolCalls: DeltaToolCall[] = [];
        for (; sentCalls < finished.length; sentCalls++) {
          const call = readFunction(finished[sentCalls]!, tools);
          if (call !== null) toolCalls.push({ id: makeToolCallId(), type: 'function', index: sentCalls, function: call });
        }
        if (toolCalls.length > 0) delta.toolCalls = toolCalls;
      }
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

/** Where the first call starts: its `<tool_call>`, or a bare `<function=` (the model may leave the wrapper out). */
function firstCallAt(text: string): number {
  const wrapped = text.indexOf(TOOL_CALL_START);
  const bare = text.indexOf('<function=');
  if (wrapped === -1) return bare;
  return bare === -1 ? wrapped : Math.min(wrapped, bare);
}

/** The text of each `<function=...>` block, in order (the last one may still be open). */
function callBlocks(text: string): string[] {
  return text
    .split('<function=')
    .slice(1)
    .map((block) => `<function=${block}`);
}

function readFunction(block: string, tools: readonly unknown[]): { name: string; arguments: string } | null {
  const match = FUNCTION_PATTERN.exec(block);
  if (match === null) return null;
  const name = match[1]!.trim();
  const schema = parameterSchema(tools, name);
  const parameters: Record<string, unknown> = {};
  for (const parameter of (match[2] ?? '').matchAll(PARAMETER_PATTERN)) {
    const key = parameter[1]!.trim();
    parameters[key] = convertValue(parameter[2] ?? '', schema[key]);
  }
  return { name, arguments: pythonJsonDumps(parameters) };
}

function parameterSchema(tools: readonly unknown[], name: string): Record<string, unknown> {
  for (const tool of tools) {
    const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : null;
    if (fn?.name !== name) continue;
    const parameters = isRecord(fn.parameters) ? fn.parameters : {};
    return isRecord(parameters.properties) ? parameters.properties : {};
  }
  return {};
}

/** vLLM's `_convert_param_value`: by the schema's type; text when it has none or the value does not parse. */
function convertValue(raw: string, schema: unknown): unknown {
  if (raw.toLowerCase() === 'null') return null;
  const type = isRecord(schema) && typeof schema.type === 'string' ? schema.type.toLowerCase() : 'string';
  if (['string', 'str', 'text', 'varchar', 'char', 'enum'].includes(type)) return raw;
  if (type.startsWith('int') || type.startsWith('uint') || type === 'long' || type === 'short') {
    const value = Number.parseInt(raw, 10);
    return Number.isNaN(value) ? raw : value;
  }
  if (type.startsWith('num') || type.startsWith('float') || type === 'double') {
    const value = Number(raw);
    return Number.isNaN(value) ? raw : value;
  }
  if (type === 'boolean' || type === 'bool' || type === 'binary') return raw.toLowerCase() === 'true';
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
