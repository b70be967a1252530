import type { AssistantOutput } from './retokenizer.js';
import { isRecord } from '../../core/json/is-record.js';
import { readReasoning } from '../../model-format/backend-fields/read-reasoning.js';

/**
 * The assistant reply of a stored chat completion body (`choices[0].message`, the assembled equivalent for
 * streams): content, reasoning under vLLM's `reasoning` or the older `reasoning_content`, and tool calls with
 * their `arguments` text as the server sent it. Null when the body holds no message.
 *
 * @example
 * readAssistantOutput({ role: 'assistant', content: 'Hi', reasoning: '\nx\n' }, true);
 * // { reasoning: '\nx\n', content: 'Hi', toolCalls: [], endsTurn: true }
 */
export function readAssistantOutput(message: unknown, endsTurn: boolean): AssistantOutput | null {
  if (!isRecord(message)) return null;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    reasoning: readReasoning(message),
    content: typeof message.content === 'string' ? message.content : null,
    toolCalls: calls.filter(isRecord).map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      const args = fn.arguments;
      return { name: String(fn.name ?? ''), arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
    }),
    endsTurn,
  };
}
