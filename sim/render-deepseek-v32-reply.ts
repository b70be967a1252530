import { makeStreamedCallId } from './make-tool-call-id.js';
import { parameterArgumentPieces, type WrittenParameter } from './parameter-argument-pieces.js';
import { pythonJsonDumps } from './python-json-dumps.js';
import { contentLayout, writeReasoning, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

const DSML = '｜DSML｜';
const CALLS_BEGIN = `<${DSML}function_calls>`;
const THINK_END = '</think>';

/**
 * Writes a reply as DeepSeek V3.2 generates it in its own DSML syntax (the simulator's own writer, from the format
 * DeepSeek's V3.2 encoder writes assistant turns back in: vLLM's vllm/tokenizers/deepseek_v32_encoding.py, a copy of
 * `encoding_dsv32.py`): with thinking on (the prompt ends `<think>`) the reasoning, then `</think>`; the content; then,
 * after "\n\n", `<｜DSML｜function_calls>\n`, the calls one a line, each `<｜DSML｜invoke name="NAME">\n`, its parameters
 * one a line as `<｜DSML｜parameter name="K" string="true">V</｜DSML｜parameter>` (a string as it is; any other value
 * `string="false"` and printed like `json.dumps`), `\n</｜DSML｜invoke>`, and `\n</｜DSML｜function_calls>`. String
 * arguments are JSON object text, read first. A call's `argumentsText` is the JSON a parser reads back when the tool's
 * schema types its non-string values. The end-of-turn token (`<｜end▁of▁sentence｜>`) is the tokenizer's EOS, added by
 * the caller. As vLLM's `deepseek_v32` parser reports it: the content is the text before `<｜DSML｜function_calls>` (its
 * "\n\n" kept), the arguments stream as JSON one parameter at a time, and a streamed call's id is `call_…`.
 *
 * @example
 * renderDeepSeekV32Reply({ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { thinking: false }).text;
 * // '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="ls">\n<｜DSML｜parameter name="path" string="true">.</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>'
 */
export function renderDeepSeekV32Reply(reply: SimReply, options: { thinking: boolean }): ReplyLayout {
  if (reply.text !== undefined) return contentLayout(reply.text, CALLS_BEGIN);
  const opening = writeReasoning(reply, options, '', THINK_END);
  let { text } = opening;
  const { think } = opening;
  const contentStart = text.length;
  text += reply.content ?? '';
  const calls = reply.toolCalls ?? [];
  const toolCalls: RenderedToolCall[] = [];
  if (calls.length > 0) text += '\n\n';
  const toolCallsStart = text.length;
  if (calls.length > 0) text += `${CALLS_BEGIN}\n`;
  for (const [index, call] of calls.entries()) {
    const values = typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as Record<string, unknown>) : call.arguments;
    if (index > 0) text += '\n';
    const start = text.length;
    text += `<${DSML}invoke name="${call.name}">\n`;
    const argumentsStart = text.length;
    const parameters: WrittenParameter[] = [];
    for (const [position, [key, value]] of Object.entries(values).entries()) {
      text += `${position > 0 ? '\n' : ''}${dsmlParameter(key, value)}`;
      parameters.push({ key, value, end: text.length });
    }
    const argumentsEnd = text.length;
    text += `\n</${DSML}invoke>`;
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
  if (calls.length > 0) text += `\n</${DSML}function_calls>`;
  return { text, think, contentStart, toolCalls, toolCallsMarker: CALLS_BEGIN, toolCallsStart, makeStreamedToolCallId: makeStreamedCallId };
}

function dsmlParameter(key: string, value: unknown): string {
  const isString = typeof value === 'string';
  return `<${DSML}parameter name="${key}" string="${isString}">${isString ? value : pythonJsonDumps(value)}</${DSML}parameter>`;
}
