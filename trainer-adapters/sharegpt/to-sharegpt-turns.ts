import { parseToolArguments } from '../conversation/parse-tool-arguments.js';
import type { ConversationMessage } from '../export-sample.js';
import type { AdapterSkip } from '../trainer-adapter.js';

/** One turn of a LLaMA-Factory ShareGPT conversation (shared/reference/trainer-formats.md 10a). */
export interface ShareGptTurn {
  from: 'human' | 'gpt' | 'function_call' | 'observation';
  value: string;
}

/**
 * Why a conversation has no ShareGPT form: LLaMA-Factory drops an example whose turns do not alternate
 * human/observation, gpt/function_call (its `SharegptDatasetConverter`), and its `system` column holds one prompt.
 */
export type ShareGptSkipReason = 'system_not_first' | 'turns_not_alternating';

/** LLaMA-Factory's own OpenAI converter joins consecutive tool results into one observation with this separator. */
const TOOL_RESPONSE_SEPARATOR = '\n</tool_response>\n<tool_response>\n';

const ASKING = new Set<ShareGptTurn['from']>(['human', 'observation']);

/**
 * Conversation messages as ShareGPT turns and a system prompt, the way LLaMA-Factory's converters read them:
 * - user -> `human`; an assistant message -> `gpt`, or `function_call` when it calls tools, whose value is the
 *   JSON of `{name, arguments}` (arguments as an object), a JSON array of them for parallel calls (FunctionFormatter
 *   reads both); text beside tool calls is dropped, as LLaMA-Factory's OpenAI converter drops it;
 * - consecutive tool results -> one `observation`, joined as LLaMA-Factory's OpenAI converter joins them;
 * - reasoning -> `<think>\n…\n</think>\n\n` before the value (Qwen3's rendering), which LLaMA-Factory's reasoning
 *   templates read back through their `thought_words`.
 * A skip when the turns do not alternate (e.g. a tool result followed by a user message) or a system message is
 * not the first message.
 *
 * @example
 * toShareGptTurns([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }]);
 * // { system: 'Be brief.', conversations: [{ from: 'human', value: 'Hi' }, { from: 'gpt', value: 'Hello.' }] }
 */
export function toShareGptTurns(messages: readonly ConversationMessage[]): { system: string; conversations: ShareGptTurn[] } | AdapterSkip {
  const first = messages[0];
  const system = first?.role === 'system' ? first.content : '';
  const rest = first?.role === 'system' ? messages.slice(1) : messages;
  const conversations: ShareGptTurn[] = [];
  for (const message of rest) {
    if (message.role === 'system') return skip('system_not_first');
    const previous = conversations.at(-1);
    if (message.role === 'tool' && previous?.from === 'observation') previous.value += TOOL_RESPONSE_SEPARATOR + message.content;
    else conversations.push(toTurn(message));
  }
  const alternating = conversations.length % 2 === 0 && conversations.every((turn, index) => ASKING.has(turn.from) === (index % 2 === 0));
  return alternating && conversations.length > 0 ? { system, conversations } : skip('turns_not_alternating');
}

function toTurn(message: ConversationMessage): ShareGptTurn {
  if (message.role === 'user') return { from: 'human', value: message.content };
  if (message.role === 'tool') return { from: 'observation', value: message.content };
  const calls = (message.tool_calls ?? []).map((call) => ({ name: call.function.name, arguments: parseToolArguments(call.function.arguments) }));
  if (calls.length === 0) return { from: 'gpt', value: withThought(message.reasoning, message.content) };
  return { from: 'function_call', value: withThought(message.reasoning, JSON.stringify(calls.length === 1 ? calls[0] : calls)) };
}

/** Qwen3's template: `'<think>\n' + reasoning.strip('\n') + '\n</think>\n\n' + content.lstrip('\n')`. */
function withThought(reasoning: string | undefined, value: string): string {
  if (reasoning === undefined) return value;
  return `<think>\n${reasoning.replace(/^\n+|\n+$/g, '')}\n</think>\n\n${value.replace(/^\n+/, '')}`;
}

function skip(reason: ShareGptSkipReason): AdapterSkip {
  return { skip: reason };
}
