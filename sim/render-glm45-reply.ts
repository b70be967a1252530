import { parameterArgumentPieces, type WrittenParameter } from './parameter-argument-pieces.js';
import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

// the role tokens GLM stops at (generation_config's eos_token_id, besides <|endoftext|>)
const OBSERVATION = '<|observation|>';
const USER = '<|user|>';

/**
 * Writes a reply as GLM-4.5 / 4.6 generates it (the simulator's own writer, from the syntax vLLM's
 * examples/tool_chat_template_glm4.jinja teaches): with thinking on `<think>REASONING</think>`, the content, then each
 * call `<tool_call>NAME\n` with one `<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n` a parameter (strings as they
 * are, other values printed like `json.dumps`) and `</tool_call>`. String arguments are JSON object text, read first.
 * A call's `argumentsText` is the JSON a parser reads back (`json.dumps` of the pairs); streamed, it goes out one pair
 * at a time (see parameterArgumentPieces). The turn ends (`endToken`, added by the caller) where GLM's generation_config
 * stops it, at the role token of what comes next: `<|observation|>` after calls, `<|user|>` after an answer (GLM-4.6's
 * template writes nothing after a turn; the next message opens with that token).
 *
 * @example
 * renderGlm45Reply({ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { thinking: false }).text;
 * // '<tool_call>ls\n<arg_key>path</arg_key>\n<arg_value>.</arg_value>\n</tool_call>'
 */
export function renderGlm45Reply(reply: SimReply, options: { thinking: boolean }): ReplyLayout & { endToken: string } {
  if (reply.text !== undefined) {
    return { ...contentLayout(reply.text, '<tool_call>'), endToken: reply.text.includes('<tool_call>') ? OBSERVATION : USER };
  }
  const opening = writeReasoning(reply, options, '<think>', '</think>');
  let { text } = opening;
  const { think } = opening;
  const contentStart = text.length;
  text += reply.content ?? '';
  const toolCalls: RenderedToolCall[] = [];
  for (const call of reply.toolCalls ?? []) {
    const values = typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as Record<string, unknown>) : call.arguments;
    const start = text.length;
    text += `<tool_call>${call.name}\n`;
    const argumentsStart = text.length;
    const parameters: WrittenParameter[] = [];
    for (const [key, value] of Object.entries(values)) {
      text += `<arg_key>${key}</arg_key>\n<arg_value>${typeof value === 'string' ? value : pythonJsonDumps(value)}</arg_value>`;
      parameters.push({ key, value, end: text.length });
      text += '\n';
    }
    const argumentsEnd = text.length;
    text += '</tool_call>';
    toolCalls.push({
      name: call.name,
      argumentsText: pythonJsonDumps(values),
      start,
      nameEnd: argumentsStart,
      argumentsStart,
      argumentsEnd,
      jsonEnd: argumentsEnd,
      end: text.length,
      argumentPieces: parameterArgumentPieces(parameters, text.length),
    });
  }
  return { text, think, contentStart, toolCalls, toolCallsMarker: '<tool_call>', endToken: toolCalls.length > 0 ? OBSERVATION : USER };
}
