import type { Conversation } from '../../../trainer-adapters/index.js';

/** The tool the hand-built conversation offers, in OpenAI function-tool form. */
export const ADD_TOOL = {
  type: 'function',
  function: {
    name: 'add',
    description: 'Adds two integers.',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
  },
};

/**
 * A hand-built conversation as readConversation gives it: a system prompt, a question, an assistant turn with
 * reasoning and two parallel tool calls (Qwen3's "\n\n" as content), both results, and the final reply with
 * reasoning and non-ASCII text.
 */
export function toolConversation(): Conversation {
  return {
    messages: [
      { role: 'system', content: 'You add numbers.' },
      { role: 'user', content: 'What is 17 + 25? And 1 + 1? ✓' },
      {
        role: 'assistant',
        content: '\n\n',
        reasoning: '\nTwo sums.\n',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 17, "b": 25}' } },
          { id: 'c2', type: 'function', function: { name: 'add', arguments: '{"a": 1, "b": 1}' } },
        ],
      },
      { role: 'tool', content: '42', tool_call_id: 'c1' },
      { role: 'tool', content: '2', tool_call_id: 'c2' },
      { role: 'assistant', content: 'It is 42, and 2 — done ✓.', reasoning: 'Both came back.' },
    ],
    tools: [ADD_TOOL],
    templateOptions: { enable_thinking: true },
  };
}
