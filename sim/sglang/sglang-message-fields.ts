import { randomBytes } from 'node:crypto';
import { pythonJsonDumps } from '../python-json-dumps.js';
import type { ReplyLayout } from '../render-reply-text.js';

/** A tool call of a non-streamed SGLang message (protocol.py `ToolCall`: id, index, type, function). */
export interface SglangToolCall {
  id: string;
  index: number;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The assistant message's fields as SGLang reports them. */
export interface SglangMessageFields {
  /** never null: serving_chat.py answers `content=text if text else ""` */
  content: string;
  reasoningContent: string | null;
  toolCalls: SglangToolCall[] | null;
}

/**
 * The message fields SGLang's parsers (`--reasoning-parser qwen3`, `--tool-call-parser qwen25`) report for a reply,
 * worked out from where the reply's parts sit, nothing parsed:
 * - with a think block, `ReasoningParser.parse_non_stream` drops `<think>` and strips the text's ends: the reasoning
 *   loses the "\n" after `<think>` but keeps the one before `</think>`, and the answer after `</think>` is stripped;
 *   a reply cut inside the think block is all reasoning;
 * - with tools offered (tool_choice not "none") and a complete call, the content is the text before the first
 *   `<tool_call>`, stripped, and each call gets `call_` + 24 hex digits and its arguments re-dumped (`json.dumps`);
 * - `content` is "" rather than null, `reasoning_content` null when empty.
 *
 * @example
 * sglangMessageFields(renderReply({ reasoning: 'r', content: 'Hi' }, { thinking: true }), 22, false);
 * // { content: 'Hi', reasoningContent: 'r\n', toolCalls: null }
 */
export function sglangMessageFields(layout: ReplyLayout, textEnd: number, parseToolCalls: boolean): SglangMessageFields {
  const { text, think } = layout;
  const end = Math.min(textEnd, text.length);
  let reasoning: string | null = null;
  let answer = text.slice(0, end);
  if (think !== null && end > 0) {
    if (end < layout.contentStart) return { content: '', reasoningContent: nonEmpty(text.slice(think.reasoningStart, end).trim()), toolCalls: null };
    reasoning = text.slice(think.reasoningStart, think.reasoningEnd).trimStart();
    answer = text.slice(layout.contentStart, end).trim();
  }
  const begun = parseToolCalls ? layout.toolCalls.filter((call) => call.start < end) : [];
  const first = begun[0];
  if (first === undefined || begun.some((call) => end < call.jsonEnd)) {
    return { content: answer, reasoningContent: nonEmpty(reasoning), toolCalls: null };
  }
  return {
    content: text.slice(layout.contentStart, first.start).trim(),
    reasoningContent: nonEmpty(reasoning),
    toolCalls: begun.map((call, index) => ({
      id: sglangToolCallId(),
      index,
      type: 'function',
      function: { name: call.name, arguments: pythonJsonDumps(JSON.parse(call.argumentsText)) },
    })),
  };
}

/** serving_chat.py `_process_tool_call_id`: `call_` + the first 24 hex digits of a uuid4. @example sglangToolCallId() // 'call_3f2a…' */
export function sglangToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

function nonEmpty(text: string | null): string | null {
  return text === null || text === '' ? null : text;
}
