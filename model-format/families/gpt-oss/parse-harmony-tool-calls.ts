import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import { makeToolCallId, type ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';
import { isFunctionCall, readHarmonyMessages, type HarmonyOutputMessage } from './read-harmony-messages.js';

const CHANNEL = '<|channel|>';

/**
 * vLLM's `openai` tool parser (vllm/tool_parsers/openai_tool_parser.py, `extract_tool_calls`) on the content the Harmony
 * reasoning split leaves (split-harmony-reasoning.ts: the shown text, then each function call's Harmony text): every
 * `to=functions.NAME` message is a call named NAME; its arguments are `json.dumps(json.loads(text))` (Python's default
 * separators and ASCII escapes) when the content type is absent or JSON, else, or when the JSON does not parse, the
 * text as written. The content is the shown text, null when empty.
 *
 * @example
 * parseHarmonyToolCalls('<|channel|>commentary to=functions.ls <|constrain|>json<|message|>{"path":"."}').toolCalls[0]?.function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseHarmonyToolCalls(content: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  const at = content.indexOf(CHANNEL);
  const shown = at === -1 ? content : content.slice(0, at);
  const calls = at === -1 ? [] : readHarmonyMessages(content.slice(at)).filter(isFunctionCall);
  return {
    toolCalls: calls.map((call) => ({
      id: makeToolCallId(),
      type: 'function',
      function: { name: functionName(call), arguments: argumentsText(call) },
    })),
    content: shown === '' ? null : shown,
  };
}

/**
 * The streamed counterpart, as vLLM's harmony streaming in serving_chat does it (`extract_harmony_streaming_delta`):
 * shown text as content; a call, once its header is read, as `{id, type, index, function: {name, arguments: ''}}`,
 * then its argument text as written (not re-serialized, unlike the whole answer), indexed by the calls before it.
 *
 * @example const stream = createHarmonyToolCallStream(); stream.push('<|channel|>commentary to=functions.ls json<|message|>');
 */
export function createHarmonyToolCallStream(): { push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null } {
  let shownSent = 0;
  const argumentsSent: number[] = [];
  return {
    push(currentText) {
      const at = currentText.indexOf(CHANNEL);
      const shown = at === -1 ? currentText : currentText.slice(0, at);
      const delta: { content?: string; toolCalls?: DeltaToolCall[] } = {};
      if (shown.length > shownSent) delta.content = shown.slice(shownSent);
      shownSent = shown.length;
      const toolCalls: DeltaToolCall[] = [];
      const calls = at === -1 ? [] : readHarmonyMessages(currentText.slice(at)).filter(isFunctionCall);
      calls.forEach((call, index) => {
        if (argumentsSent[index] === undefined) {
          toolCalls.push({ id: makeToolCallId(), type: 'function', index, function: { name: functionName(call), arguments: '' } });
          argumentsSent[index] = 0;
        }
        const piece = call.content.slice(argumentsSent[index]);
        argumentsSent[index] = call.content.length;
        if (piece !== '') toolCalls.push({ index, function: { arguments: piece } });
      });
      if (toolCalls.length > 0) delta.toolCalls = toolCalls;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

function functionName(call: HarmonyOutputMessage): string {
  return call.recipient!.slice('functions.'.length);
}

function argumentsText(call: HarmonyOutputMessage): string {
  if (call.contentType !== null && !call.contentType.includes('json')) return call.content;
  try {
    return asciiEscaped(pythonJsonDumps(JSON.parse(call.content)));
  } catch {
    return call.content;
  }
}

/** Python's `ensure_ascii=True`: every UTF-16 unit above 0x7f as `\uXXXX` (they only occur inside JSON strings). */
function asciiEscaped(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
