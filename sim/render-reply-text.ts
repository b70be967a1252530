import { pythonJsonDumps } from './python-json-dumps.js';

/** A reply before it is written out as model text: from a script entry or the seeded policy. */
export interface SimReply {
  /** raw completion text, answered as content only; when set, the structured fields are ignored */
  text?: string;
  reasoning?: string;
  content?: string;
  /** string arguments are JSON object text, written as is */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> | string }>;
  /** "length": the model did not finish its turn (no end-of-turn token) */
  finishReason?: 'stop' | 'length';
  /** Llama 3 only: tool calls written after `<|python_tag|>`, the turn ended by `<|eom_id|>` (render-llama3-reply.ts) */
  pythonTag?: boolean;
}

/** One tool call of a rendered reply; offsets into the reply text, `end` exclusive. */
export interface RenderedToolCall {
  name: string;
  /** the arguments exactly as written (JSON object text) */
  argumentsText: string;
  /** where `<tool_call>` starts */
  start: number;
  /** just past the closing quote of the name: vLLM's Hermes parser names the call once this has streamed */
  nameEnd: number;
  argumentsStart: number;
  argumentsEnd: number;
  /** just past the call's JSON object, before `\n</tool_call>` */
  jsonEnd: number;
  /** just past `</tool_call>` */
  end: number;
  /** the id the model wrote for the call, which vLLM's parser reports as its id (Kimi K2's `functions.NAME:IDX`) */
  id?: string;
  /**
   * the arguments as vLLM's parser streams them where they are no stretch of the text (XML families: JSON rebuilt
   * from the parameters); each piece goes out once the stream has reached `at`. Absent: the arguments text is streamed
   */
  argumentPieces?: readonly ArgumentPiece[];
}

/** A piece of a call's streamed arguments, sent once the reply text up to `at` has been generated. */
export interface ArgumentPiece {
  at: number;
  text: string;
}

/**
 * A rendered reply and where each of its parts sits in the text, so the answer's fields and its streamed
 * deltas come from the structure, never from reading the text back.
 */
export interface ReplyLayout {
  text: string;
  /** the think block: `<think>` at 0, reasoning in [reasoningStart, reasoningEnd), `</think>` ends at contentStart */
  think: { reasoningStart: number; reasoningEnd: number } | null;
  /** where the answer starts (after `</think>`, else 0); content runs to the first tool call or the end */
  contentStart: number;
  toolCalls: readonly RenderedToolCall[];
  /**
   * the text that opens the family's tool calls (`<tool_call>`, `<｜tool▁calls▁begin｜>`, `[TOOL_CALLS]` ...): streamed
   * content ending in a proper beginning of it waits for the next chunk, as vLLM's parsers hold it back
   * (`partial_tag_overlap`). Absent: nothing is held back
   */
  toolCallsMarker?: string;
  /** where the family's tool-call syntax starts, its marker (the content ends here); default the first call's start */
  toolCallsStart?: number;
  /** vLLM's parser for the family reports the arguments as written (DeepSeek V3.1, Kimi K2, Mistral v11+), not re-dumped */
  argumentsAsWritten?: boolean;
  /** how the server names each call (vLLM's parser for the family: Mistral's nine letters and digits); default `chatcmpl-tool-…` */
  makeToolCallId?: () => string;
  /** how it names a streamed call when that differs (vLLM's qwen3_coder and deepseek_v32 streams: `call_…`) */
  makeStreamedToolCallId?: () => string;
}

export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';
export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

/**
 * Writes a reply as Qwen3 generates it, so that the chat template renders the same text when the reply comes back
 * as history: `<think>\n{reasoning}\n</think>\n\n` (only when thinking is on and reasoning is given), the content,
 * then each tool call as `<tool_call>\n{"name": "…", "arguments": {…}}\n</tool_call>`, separated by "\n" exactly
 * where the Qwen3 template puts one (before a call that follows content or another call). Object arguments print
 * like the template's `tojson`. A raw `text` is laid out as content only.
 *
 * @example
 * renderReply({ content: 'Checking.', toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { thinking: false }).toolCalls[0].start;
 * // 10
 */
export function renderReply(reply: SimReply, options: { thinking: boolean }): ReplyLayout {
  // Qwen3's tokenizer normalizes to NFC, so the tokens decode to the NFC text: the offsets must index that text
  if (reply.text !== undefined) return contentLayout(reply.text.normalize('NFC'), TOOL_CALL_OPEN);
  const opening = writeReasoning(reply, options, THINK_OPEN, `${THINK_CLOSE}\n\n`, (reasoning) => `\n${reasoning.normalize('NFC')}\n`);
  let { text } = opening;
  const { think } = opening;
  const contentStart = think === null ? 0 : think.reasoningEnd + THINK_CLOSE.length;
  const content = (reply.content ?? '').normalize('NFC');
  text += content;
  const toolCalls: RenderedToolCall[] = [];
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    if (index > 0 || content !== '') text += '\n';
    const written = (typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments)).normalize('NFC');
    const name = call.name.normalize('NFC');
    const start = text.length;
    text += `${TOOL_CALL_OPEN}\n{"name": "${name}`;
    const nameEnd = text.length + 1;
    text += '", "arguments": ';
    // leading or trailing blanks of a string argument are JSON whitespace, not part of the value
    const argumentsStart = text.length + (written.length - written.trimStart().length);
    text += written;
    const argumentsEnd = text.length - (written.length - written.trimEnd().length);
    text += '}';
    const jsonEnd = text.length;
    text += `\n${TOOL_CALL_CLOSE}`;
    toolCalls.push({ name, argumentsText: written.trim(), start, nameEnd, argumentsStart, argumentsEnd, jsonEnd, end: text.length });
  }
  return { text, think, contentStart, toolCalls, toolCallsMarker: TOOL_CALL_OPEN };
}

/**
 * The start of a reply that thinks, as a family writes it: `open`, the reasoning span (`reasoning`, written as given),
 * `close`; nothing (and no span) when thinking is off or the reply has no reasoning. Each family's writer starts here.
 *
 * @example
 * writeReasoning({ reasoning: 'Hmm.' }, { thinking: true }, '<think>', '</think>');
 * // { text: '<think>Hmm.</think>', think: { reasoningStart: 7, reasoningEnd: 11 } }
 */
export function writeReasoning(
  reply: SimReply,
  options: { thinking: boolean },
  open: string,
  close: string,
  written: (reasoning: string) => string = (reasoning) => reasoning,
): { text: string; think: ReplyLayout['think'] } {
  if (!options.thinking || reply.reasoning === undefined) return { text: '', think: null };
  const text = `${open}${written(reply.reasoning)}`;
  return { text: `${text}${close}`, think: { reasoningStart: open.length, reasoningEnd: text.length } };
}

/**
 * A text that is all content (a raw script `text`, a canned reply); `toolCallsMarker` is the family's (see ReplyLayout).
 *
 * @example
 * contentLayout('Hi!'); // { text: 'Hi!', think: null, contentStart: 0, toolCalls: [] }
 */
export function contentLayout(text: string, toolCallsMarker?: string): ReplyLayout {
  return { text, think: null, contentStart: 0, toolCalls: [], ...(toolCallsMarker === undefined ? {} : { toolCallsMarker }) };
}

/**
 * The reply's model text (see renderReply).
 *
 * @example
 * renderReplyText({ content: 'Checking.', toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { thinking: false });
 * // 'Checking.\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>'
 */
export function renderReplyText(reply: SimReply, options: { thinking: boolean }): string {
  return renderReply(reply, options).text;
}
