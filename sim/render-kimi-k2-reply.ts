import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const SECTION_BEGIN = '<|tool_calls_section_begin|>';
const END_TOKEN = '<|im_end|>';

/**
 * Writes a reply as Kimi K2 generates it (the simulator's own writer, from MoonshotAI/Kimi-K2's
 * docs/tool_call_guidance.md): with thinking on (K2-Thinking) `<think>REASONING</think>`, the content, then the calls
 * in `<|tool_calls_section_begin|>…<|tool_calls_section_end|>`, each
 * `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>ARGS<|tool_call_end|>` (IDX counts the calls of
 * the conversation, from `firstCallIndex`, the calls its prompt already holds; object arguments printed like
 * `json.dumps`). The turn ends with `<|im_end|>` (`endToken`: Kimi's generation_config stops there, not at the
 * tokenizer's `[EOS]`), added by the caller.
 * As vLLM's `kimi_k2` parser reads it (kimi_k2_tool_parser.py): the content ends at the section marker, each call's id
 * is the `functions.NAME:IDX` written, and the arguments are reported as written.
 *
 * @example
 * renderKimiK2Reply({ toolCalls: [{ name: 'ls', arguments: {} }] }, { thinking: false }).text;
 * // '<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>'
 */
export function renderKimiK2Reply(reply: SimReply, options: { thinking: boolean; firstCallIndex?: number }): ReplyLayout & { endToken: string } {
  if (reply.text !== undefined) return { ...contentLayout(reply.text, SECTION_BEGIN), endToken: END_TOKEN };
  const opening = writeReasoning(reply, options, '<think>', '</think>');
  let { text } = opening;
  const { think } = opening;
  const contentStart = text.length;
  text += reply.content ?? '';
  const calls = reply.toolCalls ?? [];
  const toolCalls: RenderedToolCall[] = [];
  const toolCallsStart = text.length;
  if (calls.length > 0) text += SECTION_BEGIN;
  for (const [index, call] of calls.entries()) {
    const written = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    const start = text.length;
    const id = `functions.${call.name}:${(options.firstCallIndex ?? 0) + index}`;
    text += `<|tool_call_begin|>${id}`;
    const nameEnd = text.length;
    text += '<|tool_call_argument_begin|>';
    const argumentsStart = text.length;
    text += written;
    const argumentsEnd = text.length;
    text += '<|tool_call_end|>';
    toolCalls.push({
      name: call.name,
      argumentsText: written,
      start,
      nameEnd,
      argumentsStart,
      argumentsEnd,
      jsonEnd: argumentsEnd,
      end: text.length,
      id,
    });
  }
  if (calls.length > 0) text += '<|tool_calls_section_end|>';
  return { text, think, contentStart, toolCalls, toolCallsMarker: SECTION_BEGIN, toolCallsStart, argumentsAsWritten: true, endToken: END_TOKEN };
}
