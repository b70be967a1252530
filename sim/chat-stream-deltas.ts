import { makeToolCallId } from './make-tool-call-id.js';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, type RenderedToolCall, type ReplyLayout } from './render-reply-text.js';

/** One entry of a streamed `delta.tool_calls`, keys in vLLM's order. */
export interface DeltaToolCall {
  id?: string;
  type?: 'function';
  index: number;
  function: { name?: string; arguments?: string };
}

/** What one streamed chunk's delta carries. */
export interface ChatStreamDelta {
  reasoning?: string;
  content?: string;
  toolCalls?: DeltaToolCall[];
}

export interface ChatStreamDeltas {
  /** the delta for the reply text in [from, to) (the chunk's tokens); null when those tokens carry nothing to send */
  push(from: number, to: number): ChatStreamDelta | null;
  /** true once a tool-call delta went out (vLLM then finishes with "tool_calls") */
  readonly toolCallsStreamed: boolean;
}

/**
 * The streamed deltas of a reply, cut from where its parts sit, as vLLM's reasoning parser and the family's tool
 * parser (Qwen3's: vllm/tool_parsers/hermes_tool_parser.py, `extract_tool_calls_streaming`) emit them for each chunk:
 * - `<think>` and `</think>` send nothing; text between them is `reasoning`, text after is `content`;
 * - with the tool parser on, content stops at the family's tool-call marker (`layout.toolCallsStart`), and content
 *   ending in what could begin that marker (`layout.toolCallsMarker`; Qwen3's `<tool_call>`, so e.g. "<") waits for
 *   the next chunk (vLLM's `partial_tag_overlap`); a call sends `{id, type, index, function: {name}}` in the chunk that
 *   completes its name, then `{index, function: {arguments}}` with the part of the arguments text each chunk
 *   covers (or, for XML families, each JSON piece of `call.argumentPieces` once reached), less a trailing blank or a
 *   possible start of `</tool_call>` (vLLM's Hermes parser strips the unfinished region, so those go out with the next
 *   chunk); the tags, the JSON around the arguments and the "\n" between calls send nothing;
 * - a chunk whose text straddles two parts sends each part under its own key (reasoning and content together, the
 *   last content and a call's name together), as vLLM does when a chunk carries several tokens. With Qwen3 the tags
 *   are single tokens, so only a multi-token chunk (stream interval, merged steps) or the JSON around the arguments
 *   (a token such as `": {"` or `"}}`) straddles; such a token's arguments part is sent, the rest is not.
 *
 * @example
 * const deltas = createChatStreamDeltas(layout, { parseToolCalls: true });
 * deltas.push(0, 7); // null (`<think>`)
 */
export function createChatStreamDeltas(layout: ReplyLayout, options: { parseToolCalls: boolean }): ChatStreamDeltas {
  const { text, think, contentStart, toolCalls, toolCallsMarker } = layout;
  const callsStart = layout.toolCallsStart ?? toolCalls[0]?.start;
  const contentEnd = options.parseToolCalls ? (callsStart ?? text.length) : text.length;
  let contentSent = contentStart;
  const named: boolean[] = [];
  const argumentsSent = toolCalls.map((call) => call.argumentsStart);
  const piecesSent = toolCalls.map(() => 0);
  let toolCallsStreamed = false;

  function sendableContent(to: number): number {
    if (options.parseToolCalls && callsStart !== undefined && to > callsStart) return contentEnd;
    const upTo = Math.min(to, contentEnd);
    if (!options.parseToolCalls || toolCallsMarker === undefined || upTo <= contentStart) return upTo;
    return upTo - partialTagOverlap(text.slice(contentStart, upTo), toolCallsMarker);
  }

  function toolCallDeltas(to: number): DeltaToolCall[] {
    const deltas: DeltaToolCall[] = [];
    for (const [index, call] of toolCalls.entries()) {
      if (call.start >= to) break;
      if (named[index] !== true) {
        // vLLM's parser cannot start call i+1 before call i has its name
        if (to < call.nameEnd) break;
        named[index] = true;
        const id = call.id ?? (layout.makeStreamedToolCallId ?? layout.makeToolCallId ?? makeToolCallId)();
        deltas.push({ id, type: 'function', index, function: { name: call.name } });
      }
      if (call.argumentPieces !== undefined) {
        const reached = call.argumentPieces.slice(piecesSent[index]).filter((piece) => piece.at <= to);
        piecesSent[index] = (piecesSent[index] ?? 0) + reached.length;
        if (reached.length > 0) deltas.push({ index, function: { arguments: reached.map((piece) => piece.text).join('') } });
        continue;
      }
      const sent = argumentsSent[index] ?? call.argumentsStart;
      const upTo = argumentsSendable(call, to);
      if (upTo > sent) {
        deltas.push({ index, function: { arguments: text.slice(sent, upTo) } });
        argumentsSent[index] = upTo;
      }
    }
    return deltas;
  }

  // vLLM strips the region it has so far (`raw.strip()` after cutting a partial `</tool_call>`), so a trailing blank
  // (a token such as ", ") or what may begin the closing tag waits for the next chunk
  function argumentsSendable(call: RenderedToolCall, to: number): number {
    if (to >= call.argumentsEnd) return call.argumentsEnd;
    let upTo = to - partialTagOverlap(text.slice(call.start + TOOL_CALL_OPEN.length, to), TOOL_CALL_CLOSE);
    while (upTo > call.argumentsStart && /\s/u.test(text.charAt(upTo - 1))) upTo--;
    return upTo;
  }

  return {
    get toolCallsStreamed() {
      return toolCallsStreamed;
    },
    push(from, to) {
      const delta: ChatStreamDelta = {};
      if (think !== null) {
        const reasoning = text.slice(Math.max(from, think.reasoningStart), Math.min(to, think.reasoningEnd));
        if (reasoning !== '') delta.reasoning = reasoning;
      }
      const sendable = sendableContent(to);
      if (sendable > contentSent) {
        delta.content = text.slice(contentSent, sendable);
        contentSent = sendable;
      }
      if (options.parseToolCalls) {
        const calls = toolCallDeltas(to);
        if (calls.length > 0) [delta.toolCalls, toolCallsStreamed] = [calls, true];
      }
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

/** Length of the longest end of `text` that is a proper beginning of `tag` (vLLM's `partial_tag_overlap`). */
function partialTagOverlap(text: string, tag: string): number {
  for (let length = Math.min(text.length, tag.length - 1); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}
