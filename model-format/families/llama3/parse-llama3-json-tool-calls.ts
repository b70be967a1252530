import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import { isCompleteJson } from '../is-complete-json.js';
import { makeToolCallId, type ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';
import { readPartialJson } from './partial-json.js';

/** The token Llama 3.1 may start a tool call with (a special token: it is not in text decoded without them). */
export const PYTHON_TAG = '<|python_tag|>';

/**
 * Reads Llama 3.x JSON tool calls as vLLM's `llama3_json` parser does (`Llama3JsonToolParser.extract_tool_calls` in
 * vllm/tool_parsers/llama_tool_parser.py): every `{` not inside an object already read starts a JSON object, which must
 * have a string `name` and `arguments` or else `parameters`; the arguments are written back like Python's
 * `json.dumps(ensure_ascii=False)`. Any `{` that does not start such an object makes the whole text content. When calls
 * are found the content is null: text around the JSON is dropped.
 *
 * @example
 * parseLlama3JsonToolCalls('{"name": "ls", "parameters": {"path": "."}}').toolCalls[0].function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseLlama3JsonToolCalls(text: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  const asContent = { toolCalls: [], content: text };
  if (!text.includes(PYTHON_TAG) && !text.includes('{')) return asContent;
  const toolCalls: ParsedToolCall[] = [];
  let endIndex = -1;
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    if (start <= endIndex) continue;
    const end = jsonValueEnd(text, start);
    if (end === -1) return asContent;
    let object: unknown;
    try {
      object = JSON.parse(text.slice(start, end));
    } catch {
      return asContent;
    }
    endIndex = end;
    if (typeof object !== 'object' || object === null || Array.isArray(object)) return asContent;
    const record = object as Record<string, unknown>;
    const name = record.name;
    const args = 'arguments' in record ? record.arguments : record.parameters;
    if (typeof name !== 'string' || !('arguments' in record || 'parameters' in record)) return asContent;
    toolCalls.push({ id: makeToolCallId(), type: 'function', function: { name, arguments: pythonJsonDumps(args) } });
  }
  return toolCalls.length > 0 ? { toolCalls, content: null } : asContent;
}

/** Just past the JSON value starting at `start` (brackets matched outside strings), or -1 when it does not close. */
function jsonValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{' || character === '[') depth++;
    else if ((character === '}' || character === ']') && --depth === 0) return index + 1;
  }
  return -1;
}

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface Llama3JsonToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams Llama 3.x JSON tool calls as vLLM's `llama3_json` parser does (`extract_tool_calls_streaming`): a text that
 * does not start with `<|python_tag|>` or `{` is all content, each delta sent as it comes. Otherwise the whole text is
 * re-read on every delta as JSON objects separated by `"; "`, partial ones completed (strings only once the call's
 * name is out): a new object first only moves the cursor (and sends what the previous call's arguments still lacked),
 * then the name goes out with a fresh id, then the arguments, written like `json.dumps`, as far as two readings in a
 * row agree (all of it once the object is complete). Text that is no JSON yet produces nothing.
 *
 * @example
 * const stream = createLlama3JsonToolCallStream();
 * stream.push('{"name": "ls"'); // null: the cursor moves to call 0
 * stream.push('{"name": "ls", '); // { toolCalls: [{ id, type: 'function', index: 0, function: { name: 'ls' } }] }
 */
export function createLlama3JsonToolCallStream(): Llama3JsonToolCallStream {
  let previousText = '';
  let previousCalls: Array<Record<string, unknown>> = [];
  let currentTool = -1;
  let nameSent = false;
  const argumentsSent: string[] = [];
  return {
    push(currentText) {
      const deltaText = currentText.slice(previousText.length);
      previousText = currentText;
      if (!(currentText.startsWith(PYTHON_TAG) || currentText.startsWith('{'))) return deltaText === '' ? null : { content: deltaText };
      const calls: Array<Record<string, unknown>> = [];
      const complete: boolean[] = [];
      let start = currentText.startsWith(PYTHON_TAG) ? PYTHON_TAG.length : 0;
      while (start < currentText.length) {
        const read = readPartialJson(currentText.slice(start), { partialStrings: nameSent });
        if (read === null) return null;
        complete.push(read.complete || isCompleteJson(currentText.slice(start, start + read.end)));
        start += read.end + '; '.length;
        if (typeof read.value !== 'object' || read.value === null || Array.isArray(read.value)) return null;
        const call = { ...(read.value as Record<string, unknown>) };
        if ('parameters' in call) {
          // vLLM asserts the model did not write both; the failed assertion skips the delta
          if ('arguments' in call) return null;
          call.arguments = call.parameters;
        }
        calls.push(call);
      }
      if (calls.length === 0) return null;
      if (calls.length > currentTool + 1) {
        let delta: { toolCalls: DeltaToolCall[] } | null = null;
        if (currentTool >= 0) {
          const args = calls[currentTool]?.arguments;
          if (truthy(args)) {
            const diff = pythonJsonDumps(args).slice(argumentsSent[currentTool]!.length);
            delta = { toolCalls: [{ index: currentTool, function: { arguments: diff } }] };
            argumentsSent[currentTool] += diff;
          }
        }
        currentTool = calls.length - 1;
        nameSent = false;
        argumentsSent.push('');
        return delta;
      }
      const call = calls[currentTool]!;
      let delta: { toolCalls: DeltaToolCall[] } | null = null;
      if (!nameSent) {
        if (truthy(call.name)) {
          delta = { toolCalls: [{ index: currentTool, type: 'function', id: makeToolCallId(), function: { name: String(call.name) } }] };
          nameSent = true;
        }
      } else if (truthy(call.arguments)) {
        const sent = argumentsSent[currentTool]!.length;
        const written = pythonJsonDumps(call.arguments);
        const before = previousCalls[currentTool]?.arguments;
        let diff: string | null = null;
        if (complete[currentTool] === true) diff = written.slice(sent);
        else if (truthy(before)) {
          const writtenBefore = pythonJsonDumps(before);
          if (written !== writtenBefore) diff = commonPrefix(writtenBefore, written).slice(sent);
        }
        if (diff !== null) {
          delta = { toolCalls: [{ index: currentTool, function: { arguments: diff } }] };
          argumentsSent[currentTool] += diff;
        }
      }
      previousCalls = calls;
      return delta;
    },
  };
}

/** Python's truthiness for a JSON value: empty strings, objects and arrays, 0, false and null are false. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** vLLM's `find_common_prefix`. */
function commonPrefix(a: string, b: string): string {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return a.slice(0, index);
}
