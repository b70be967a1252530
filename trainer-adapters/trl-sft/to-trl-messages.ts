import { parseToolArguments } from '../conversation/parse-tool-arguments.js';
import type { ConversationMessage } from '../export-sample.js';

/** A message as TRL's SFTTrainer hands it to `apply_chat_template` (shared/reference/trainer-formats.md 4a). */
export interface TrlMessage {
  role: ConversationMessage['role'];
  content: string;
  /** the assistant's reasoning, under the name Qwen3-style templates read (`message.reasoning_content`) */
  reasoning_content?: string;
  tool_calls?: Array<{ id?: string; type: 'function'; function: { name: string; arguments: unknown } }>;
  tool_call_id?: string;
  name?: string;
}

/**
 * Conversation messages as TRL's conversational rows: tool-call `arguments` parsed into the JSON object templates
 * print with `tojson` (TRL's tool-calling example), reasoning as `reasoning_content`, and tool messages named after
 * the call they answer when the request did not name them (TRL's example tool message carries `name`). Call ids and
 * `tool_call_id` are kept when known, for templates that print them.
 *
 * @example
 * toTrlMessages([
 *   { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }] },
 *   { role: 'tool', content: '1', tool_call_id: 'c1' },
 * ]);
 * // [{ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: { a: 1 } } }] },
 * //  { role: 'tool', content: '1', tool_call_id: 'c1', name: 'add' }]
 */
export function toTrlMessages(messages: readonly ConversationMessage[]): TrlMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => {
    const trl: TrlMessage = { role: message.role, content: message.content };
    if (message.reasoning !== undefined) trl.reasoning_content = message.reasoning;
    if (message.tool_calls !== undefined) {
      trl.tool_calls = message.tool_calls.map((call) => {
        if (call.id !== '') toolNames.set(call.id, call.function.name);
        const parsedArguments = parseToolArguments(call.function.arguments);
        return { ...(call.id === '' ? {} : { id: call.id }), type: 'function', function: { name: call.function.name, arguments: parsedArguments } };
      });
    }
    if (message.tool_call_id !== undefined && message.tool_call_id !== '') trl.tool_call_id = message.tool_call_id;
    const name = message.name ?? (message.tool_call_id === undefined ? undefined : toolNames.get(message.tool_call_id));
    if (message.role === 'tool' && name !== undefined) trl.name = name;
    return trl;
  });
}
