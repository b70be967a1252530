import { makeToolCallId } from './make-tool-call-id.js';
import { pythonJsonDumps } from './python-json-dumps.js';
import type { ReplyLayout } from './render-reply-text.js';

/** One tool call of a non-streamed message, as vLLM returns it: `arguments` is a JSON string. */
export interface MessageToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The assistant message's reasoning, content and tool calls; null where vLLM reports null. */
export interface ChatMessageFields {
  reasoning: string | null;
  content: string | null;
  toolCalls: MessageToolCall[];
}

export interface ChatMessageFieldsOptions {
  /** how much of the reply was generated (characters of the layout's text); less than all after a stop or a length cut */
  textEnd: number;
  /** vLLM runs the family's tool parser: the request has tools and `tool_choice` is not "none" */
  parseToolCalls: boolean;
}

/**
 * The message fields vLLM reports for a reply, worked out from where the reply's parts sit (no text is parsed):
 * - the think block gives `reasoning`, the text between the tags (so it keeps the "\n" the model writes after
 *   `<think>` and before `</think>`); a reply cut inside it is all reasoning, content null (vLLM's Qwen3 parser);
 * - `content` is what follows `</think>`, or the whole text without a think block; after a think block an empty
 *   answer is null (vLLM's `content or None`);
 * - with the family's tool parser on and a tool call begun, `content` shrinks to the text before the family's
 *   tool-call marker (`layout.toolCallsStart`: Qwen3's first `<tool_call>`, DeepSeek's `<｜tool▁calls▁begin｜>`, Kimi
 *   K2's `<|tool_calls_section_begin|>` ...; null when empty, so the "\n\n" after `</think>` stays content) and each
 *   call is reported with its id (the one the model wrote, else the server's) and `arguments` re-dumped as Python's
 *   `json.dumps` does, or as written where the family's parser keeps them (`layout.argumentsAsWritten`); a call cut
 *   before its JSON closed makes vLLM's parser fail, and then the whole answer is content with no tool calls. Without
 *   the parser a tool call is just content text.
 *
 * @example
 * chatMessageFields(renderReply({ reasoning: 'r', content: 'Hi' }, { thinking: true }), { textEnd: 22, parseToolCalls: false });
 * // { reasoning: '\nr\n', content: '\n\nHi', toolCalls: [] }
 */
export function chatMessageFields(layout: ReplyLayout, options: ChatMessageFieldsOptions): ChatMessageFields {
  const { text, think } = layout;
  const end = Math.min(options.textEnd, text.length);
  if (think !== null && end > 0) {
    if (end < layout.contentStart)
      return { reasoning: text.slice(think.reasoningStart, Math.min(end, think.reasoningEnd)), content: null, toolCalls: [] };
    const reasoning = text.slice(think.reasoningStart, think.reasoningEnd);
    const answer = text.slice(layout.contentStart, end);
    if (answer === '') return { reasoning, content: null, toolCalls: [] };
    return { reasoning, ...answerFields(layout, end, answer, options.parseToolCalls) };
  }
  return { reasoning: null, ...answerFields(layout, end, text.slice(0, end), options.parseToolCalls) };
}

function answerFields(layout: ReplyLayout, end: number, answer: string, parseToolCalls: boolean): Omit<ChatMessageFields, 'reasoning'> {
  const begun = layout.toolCalls.filter((call) => call.start < end);
  const first = begun[0];
  if (!parseToolCalls || first === undefined) return { content: answer, toolCalls: [] };
  if (begun.some((call) => end < call.jsonEnd)) return { content: answer, toolCalls: [] };
  const before = layout.text.slice(layout.contentStart, layout.toolCallsStart ?? first.start);
  return {
    content: before === '' ? null : before,
    toolCalls: begun.map((call) => ({
      id: call.id ?? (layout.makeToolCallId ?? makeToolCallId)(),
      type: 'function',
      function: {
        name: call.name,
        arguments: layout.argumentsAsWritten === true ? call.argumentsText : pythonJsonDumps(JSON.parse(call.argumentsText)),
      },
    })),
  };
}
