import { normalizeChatMessages, normalizeChatTools, type TemplateMessage } from '../../chat-template/normalize-chat-messages.js';
import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import type { RenderChatOptions } from '../../chat-template/render-chat-options.js';
import { isRecord } from '../../../core/json/is-record.js';
import { readReasoning } from '../../backend-fields/read-reasoning.js';
import { dsmlToolsPrompt } from './dsml-tools-prompt.js';

const BOS = '<｜begin▁of▁sentence｜>';
const EOS = '<｜end▁of▁sentence｜>';
const THINK_START = '<think>';
const THINK_END = '</think>';
const DSML = '｜DSML｜';

/**
 * Renders a chat as DeepSeek V3.2's prompt, the text vLLM writes for `--tokenizer-mode deepseek_v32` (DeepSeek ships
 * V3.2 with no Jinja template; vLLM runs DeepSeek's Python encoder, vllm/tokenizers/deepseek_v32_encoding.py, on the
 * conversation its chat code parsed, as vllm/tokenizers/deepseek_v32.py `apply_chat_template` calls it). The family's
 * own renderer, written from that code:
 * - thinking is `chat_template_kwargs.thinking` or `enable_thinking`; the tools become a first system message of their
 *   own (so a system prompt of the request follows the tools section with nothing between);
 * - `<｜begin▁of▁sentence｜>`, then each message: system text as it is; a user turn `<｜User｜>TEXT<｜Assistant｜>`
 *   and `<think>` when it is the last user turn and thinking is on, else `</think>`; a developer message as a user turn
 *   whose text is `\n\n# The user's message is: TEXT`; an assistant turn as its content, then its calls as a
 *   `\n\n<｜DSML｜function_calls>` block (string values as they are, others printed like `json.dumps`), then
 *   `<｜end▁of▁sentence｜>`, its reasoning and `</think>` before the content only in thinking mode after the last user
 *   turn (earlier reasoning is dropped); tool results gathered in one `\n\n<function_results>` block of
 *   `\n<result>TEXT</result>`, closed after the call's last result by `\n</function_results>\n\n` and `<think>`
 *   (thinking, after the last user turn) or `</think>`.
 * There is no generation prompt to add (a user turn or the last tool result opens the assistant's). What the encoder
 * refuses is refused (an Error): a tool result with no call left to answer, an assistant turn after the last user turn
 * with neither reasoning nor calls in thinking mode (unless `addGenerationPrompt` is false: a history rendered to count
 * its turns, where such an answer is written with empty reasoning), an empty developer message, a developer message
 * before the last user turn in thinking mode (dropping reasoning drops it).
 *
 * @example
 * renderDeepSeekV32Chat([{ role: 'user', content: 'Hi' }], null, {});
 * // '<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜></think>'
 */
export function renderDeepSeekV32Chat(messages: readonly unknown[], tools: readonly unknown[] | null, options: RenderChatOptions = {}): string {
  const kwargs = options.templateKwargs ?? {};
  const thinking = isTruthy(kwargs.thinking) || isTruthy(kwargs.enable_thinking);
  const conversation: TemplateMessage[] = normalizeChatMessages(messages);
  const toolList = tools === null ? [] : normalizeChatTools(tools);
  if (toolList.length > 0) conversation.unshift({ role: 'system', content: '', tools: toolList });
  const lastUser = conversation.findLastIndex((message) => message.role === 'user' || message.role === 'developer');
  // vLLM drops earlier reasoning when the conversation ends with a user turn; DeepSeek's drop removes a developer
  // message before the last user turn outright, and its renderer then fails for the missing message
  const endsWithUser = conversation.at(-1)?.role === 'user';
  if (thinking && endsWithUser && conversation.some((message, index) => message.role === 'developer' && index < lastUser)) {
    throw new Error('DeepSeek V3.2 encoding drops a developer message before the last user message in thinking mode and cannot render');
  }
  // a history rendered to count its turns (no generation prompt) is no prompt the encoder is asked for: a finished
  // answer the harness sent back without its reasoning is written, as vLLM writes it once the next user turn comes
  const context = { conversation, lastUser, thinking, strict: options.addGenerationPrompt !== false };
  return BOS + conversation.map((message, index) => renderMessage(context, message, index)).join('');
}

interface RenderContext {
  conversation: readonly TemplateMessage[];
  lastUser: number;
  thinking: boolean;
  /** refuse an answer after the last user turn with neither reasoning nor calls in thinking mode, as the encoder does */
  strict: boolean;
}

function renderMessage(context: RenderContext, message: TemplateMessage, index: number): string {
  const tools = Array.isArray(message.tools) ? (message.tools as Array<Record<string, unknown>>) : [];
  const toolsSection = tools.length > 0 ? `\n\n${dsmlToolsPrompt(tools)}` : '';
  const opensThinking = context.thinking && index === context.lastUser;
  switch (message.role) {
    case 'system':
      return message.content + toolsSection;
    case 'user':
      return userTurn(message.content, opensThinking);
    case 'developer':
      if (message.content === '') throw new Error(`messages[${index}]: a developer message needs content`);
      return userTurn(`${toolsSection}\n\n# The user's message is: ${message.content}`, opensThinking);
    case 'tool':
      return toolResult(context, message, index);
    case 'assistant':
      return assistantTurn(context, message, index);
    default:
      throw new Error(`messages[${index}]: DeepSeek V3.2 encoding has no role ${message.role}`);
  }
}

function userTurn(text: string, opensThinking: boolean): string {
  return `<｜User｜>${text}<｜Assistant｜>${opensThinking ? THINK_START : THINK_END}`;
}

/** One result inside the `<function_results>` block of the calls of the assistant turn before the run of results. */
function toolResult(context: RenderContext, message: TemplateMessage, index: number): string {
  let callerIndex = index - 1;
  while (callerIndex >= 0 && context.conversation[callerIndex]!.role === 'tool') callerIndex--;
  const caller = context.conversation[callerIndex];
  const calls = caller?.role === 'assistant' && Array.isArray(caller.tool_calls) ? caller.tool_calls : [];
  const position = index - callerIndex;
  if (calls.length < position) throw new Error(`messages[${index}]: a tool result answers no tool call of the assistant turn before it`);
  let text = position === 1 ? '\n\n<function_results>' : '';
  text += `\n<result>${message.content}</result>`;
  if (position === calls.length) {
    const opensThinking = context.thinking && index >= context.lastUser;
    text += `\n</function_results>\n\n${opensThinking ? THINK_START : THINK_END}`;
  }
  return text;
}

function assistantTurn(context: RenderContext, message: TemplateMessage, index: number): string {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const callsText = calls.length === 0 ? '' : `\n\n<${DSML}function_calls>\n${calls.map(invoke).join('\n')}\n</${DSML}function_calls>`;
  let reasoningText = '';
  if (context.thinking && index > context.lastUser) {
    const reasoning = readReasoning(message) ?? '';
    if (reasoning === '' && calls.length === 0 && context.strict) {
      throw new Error(`messages[${index}]: in thinking mode an assistant turn after the last user message needs reasoning or tool calls`);
    }
    reasoningText = reasoning + THINK_END;
  }
  return `${reasoningText}${message.content}${callsText}${EOS}`;
}

/** `<｜DSML｜invoke name="NAME">`, one parameter a line, `</｜DSML｜invoke>`; the arguments are the parsed object. */
function invoke(call: unknown, position: number): string {
  const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
  if (typeof fn.name !== 'string') throw new Error(`tool_calls[${position}] has no function name`);
  const values = fn.arguments;
  if (!isRecord(values)) throw new Error(`tool_calls[${position}] arguments must be a JSON object`);
  const parameters = Object.entries(values).map(([key, value]) => {
    const isString = typeof value === 'string';
    return `<${DSML}parameter name="${key}" string="${isString}">${isString ? value : pythonJsonDumps(value)}</${DSML}parameter>`;
  });
  return `<${DSML}invoke name="${fn.name}">\n${parameters.join('\n')}\n</${DSML}invoke>`;
}

/** Python's truth of a `chat_template_kwargs` value (`kwargs.get("thinking", False)` read with `or`). */
function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}
