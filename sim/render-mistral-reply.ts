import { randomInt } from 'node:crypto';
import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const TOOL_CALLS = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
// mistral_common's begin_think / end_think, control tokens of tokenizers v13 and later (Magistral)
const THINK = '[THINK]';
const END_THINK = '[/THINK]';
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export interface MistralReplyOptions {
  /**
   * the tokenizer is v11 or later (vLLM: `[ARGS]` is in its vocabulary): each call is `[TOOL_CALLS]NAME[ARGS]{…}`;
   * else the calls are one `[TOOL_CALLS] [{"name": …, "arguments": …}, …]` list
   */
  v11: boolean;
  /** the tokenizer is v13 or later (`[THINK]` is one of its tokens): a reply's reasoning is written `[THINK]…[/THINK]` first */
  think?: boolean;
}

/**
 * Writes a reply as a Mistral model generates it (the simulator's own writer): the content, then the tool calls in
 * the syntax of the model's tokenizer. Before v11 (what vLLM's examples/tool_chat_template_mistral.jinja renders back)
 * `[TOOL_CALLS] [{"name": "…", "arguments": {…}}, …]`, parallel calls in the one list; v11 and later (mistral_common's
 * tokenizers) `[TOOL_CALLS]NAME[ARGS]{…}` for each call. Object arguments are printed like `json.dumps`. A tokenizer of
 * v13 or later (`think`, Magistral's) writes a reply's reasoning first, `[THINK]REASONING[/THINK]`; an older one writes
 * none. The end-of-turn token (`</s>`) is the tokenizer's EOS, added by the caller. The
 * first call's `start` is its `[TOOL_CALLS]` (content ends there, as vLLM's parser cuts it), and the server names
 * calls as vLLM's Mistral parser does: nine letters and digits.
 *
 * @example
 * renderMistralReply({ toolCalls: [{ name: 'ls', arguments: {} }] }, { v11: false }).text; // '[TOOL_CALLS] [{"name": "ls", "arguments": {}}]'
 */
export function renderMistralReply(reply: SimReply, options: MistralReplyOptions = { v11: false }): ReplyLayout {
  if (reply.text !== undefined) return contentLayout(reply.text, TOOL_CALLS);
  const calls = reply.toolCalls ?? [];
  const written = calls.map((call) => ({
    name: call.name,
    argumentsText: typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments),
  }));
  const opening = writeReasoning(reply, { thinking: options.think === true }, THINK, END_THINK);
  // the writers place the calls after what they are given: the think block and the content
  const before = opening.text + (reply.content ?? '');
  const { text, toolCalls } = options.v11 ? writeV11(before, written) : writeList(before, written);
  // vLLM's v11+ path keeps the arguments as written; before v11 it re-dumps the parsed list (json.dumps)
  return {
    text,
    think: opening.think,
    contentStart: opening.text.length,
    toolCalls,
    toolCallsMarker: TOOL_CALLS,
    argumentsAsWritten: options.v11,
    makeToolCallId: makeMistralToolCallId,
  };
}

type WrittenCall = { name: string; argumentsText: string };

/** `content[TOOL_CALLS] [{…}, {…}]`; the name is complete once its closing quote has come (vLLM's ijson reading). */
function writeList(content: string, calls: readonly WrittenCall[]): { text: string; toolCalls: RenderedToolCall[] } {
  let text = content;
  const toolCalls: RenderedToolCall[] = [];
  if (calls.length > 0) text += `${TOOL_CALLS} [`;
  for (const [index, call] of calls.entries()) {
    if (index > 0) text += ', ';
    const start = index === 0 ? content.length : text.length;
    text += `{"name": "${call.name}"`;
    const nameEnd = text.length;
    text += ', "arguments": ';
    const argumentsStart = text.length;
    text += call.argumentsText;
    const argumentsEnd = text.length;
    text += '}';
    toolCalls.push({ ...call, start, nameEnd, argumentsStart, argumentsEnd, jsonEnd: text.length, end: text.length });
  }
  if (calls.length > 0) text += ']';
  return { text, toolCalls };
}

/** `content[TOOL_CALLS]NAME[ARGS]{…}…`; vLLM sends a name once the `{` after it has come, so it ends just past that. */
function writeV11(content: string, calls: readonly WrittenCall[]): { text: string; toolCalls: RenderedToolCall[] } {
  let text = content;
  const toolCalls: RenderedToolCall[] = [];
  for (const call of calls) {
    const start = text.length;
    text += `${TOOL_CALLS}${call.name}${ARGS}`;
    const argumentsStart = text.length;
    text += call.argumentsText;
    const argumentsEnd = text.length;
    toolCalls.push({ ...call, start, nameEnd: argumentsStart + 1, argumentsStart, argumentsEnd, jsonEnd: argumentsEnd, end: argumentsEnd });
  }
  return { text, toolCalls };
}

/** A tool-call id as vLLM's Mistral parser makes one (`MistralToolCall.generate_random_id`): nine letters and digits. */
function makeMistralToolCallId(): string {
  let id = '';
  for (let index = 0; index < 9; index++) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return id;
}
