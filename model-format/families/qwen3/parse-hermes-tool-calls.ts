import { randomBytes } from 'node:crypto';
import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';

/** One tool call as an OpenAI-compatible server returns it: `arguments` is a JSON string. */
export interface ParsedToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface HermesToolCallParse {
  /** true when at least one `<tool_call>` block parsed */
  toolsCalled: boolean;
  toolCalls: ParsedToolCall[];
  /** the text before the first `<tool_call>` (null when empty), or the whole text when nothing parsed */
  content: string | null;
}

export const TOOL_CALL_START = '<tool_call>';
export const TOOL_CALL_END = '</tool_call>';

// vLLM's Hermes2ProToolParser.tool_call_regex: closed blocks, or an unclosed one running to the end
const TOOL_CALL_PATTERN = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)/g;

/**
 * Extracts Hermes-style tool calls (`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`) as vLLM's
 * `hermes` tool parser does (vllm/tool_parsers/hermes_tool_parser.py, `extract_tool_calls`): every block's
 * JSON is parsed, `arguments` is re-serialized like Python `json.dumps(..., ensure_ascii=False)`, ids are
 * fresh `chatcmpl-tool-<hex>`, and any block that fails to parse makes the whole text plain content.
 *
 * @example
 * parseHermesToolCalls('<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>');
 * // { toolsCalled: true, content: null, toolCalls: [{ id: 'chatcmpl-tool-…', type: 'function',
 * //   function: { name: 'ls', arguments: '{"path": "."}' } }] }
 */
export function parseHermesToolCalls(text: string): HermesToolCallParse {
  const start = text.indexOf(TOOL_CALL_START);
  if (start === -1) return { toolsCalled: false, toolCalls: [], content: text };
  try {
    const toolCalls: ParsedToolCall[] = [];
    for (const match of text.matchAll(TOOL_CALL_PATTERN)) {
      const call = JSON.parse((match[1] ?? match[2] ?? '').trim()) as { name?: unknown; arguments?: unknown };
      if (typeof call.name !== 'string') throw new Error('tool call without a name');
      toolCalls.push({
        id: makeToolCallId(),
        type: 'function',
        function: { name: call.name, arguments: pythonJsonDumps(call.arguments) },
      });
    }
    const content = text.slice(0, start);
    return { toolsCalled: true, toolCalls, content: content === '' ? null : content };
  } catch {
    return { toolsCalled: false, toolCalls: [], content: text };
  }
}

/**
 * A tool-call id in vLLM's default form, `chatcmpl-tool-` and 32 hex digits (`make_tool_call_id`).
 *
 * @example
 * makeToolCallId(); // 'chatcmpl-tool-ca99dda515524c6abe47d1ea22813507'
 */
export function makeToolCallId(): string {
  return `chatcmpl-tool-${randomBytes(16).toString('hex')}`;
}
