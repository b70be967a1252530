import { makeStreamedCallId } from './make-tool-call-id.js';
import { parameterArgumentPieces, type WrittenParameter } from './parameter-argument-pieces.js';
import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const THINK_END = '</think>';

/**
 * Writes a reply as Qwen3.5 generates it (the simulator's own writer, from the format Qwen3.5's chat template writes
 * assistant turns back in): its prompt already opened the think block, so with thinking on the text starts with the
 * reasoning, then `\n</think>\n\n`; then the content; then each call as
 * `<tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>\n…</function>\n</tool_call>` (Qwen3-Coder's XML; a
 * string value as it is, any other printed like `json.dumps`), after "\n\n" when content precedes the first and after
 * "\n" between calls, exactly where the template puts them. String arguments are JSON object text, read first. A
 * call's `argumentsText` is the JSON a parser reads back when the tool's schema types its values; streamed, it goes out
 * one parameter at a time and a call's id is `call_…` (vLLM's `qwen3_coder`). The end-of-turn token (`<|im_end|>`) is
 * the tokenizer's EOS, added by the caller.
 *
 * @example
 * renderQwen35Reply({ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { thinking: false }).text;
 * // '<tool_call>\n<function=ls>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>'
 */
export function renderQwen35Reply(reply: SimReply, options: { thinking: boolean }): ReplyLayout {
  // Qwen's tokenizer normalizes to NFC, so the tokens decode to the NFC text: the offsets must index that text
  if (reply.text !== undefined) return contentLayout(reply.text.normalize('NFC'), '<tool_call>');
  const opening = writeReasoning(reply, options, '', `\n${THINK_END}\n\n`, (reasoning) => reasoning.normalize('NFC'));
  let { text } = opening;
  const { think } = opening;
  const contentStart = text.length;
  const content = (reply.content ?? '').normalize('NFC');
  text += content;
  const toolCalls: RenderedToolCall[] = [];
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const values = typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as Record<string, unknown>) : call.arguments;
    const name = call.name.normalize('NFC');
    if (index > 0) text += '\n';
    else if (content.trim() !== '') text += '\n\n';
    const start = text.length;
    text += `<tool_call>\n<function=${name}>\n`;
    const argumentsStart = text.length;
    const parameters: WrittenParameter[] = [];
    for (const [key, value] of Object.entries(values)) {
      text += `<parameter=${key}>\n${(typeof value === 'string' ? value : pythonJsonDumps(value)).normalize('NFC')}\n</parameter>`;
      parameters.push({ key, value, end: text.length });
      text += '\n';
    }
    const argumentsEnd = text.length;
    text += '</function>';
    const pieces = parameterArgumentPieces(parameters, text.length).map((piece) => ({ ...piece, text: piece.text.normalize('NFC') }));
    text += '\n</tool_call>';
    toolCalls.push({
      name,
      argumentsText: pythonJsonDumps(values).normalize('NFC'),
      start,
      nameEnd: argumentsStart,
      argumentsStart,
      argumentsEnd,
      jsonEnd: argumentsEnd,
      end: text.length,
      argumentPieces: pieces,
    });
  }
  return { text, think, contentStart, toolCalls, toolCallsMarker: '<tool_call>', makeStreamedToolCallId: makeStreamedCallId };
}
