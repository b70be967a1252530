import { describe, expect, it } from 'vitest';
import { createTrainerAdapter, type Conversation, type ConversationMessage } from '../../trainer-adapters/index.js';
import { toolConversation } from './conversation/tool-conversation.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const adapter = createTrainerAdapter('sharegpt');

function rowOf(messages: ConversationMessage[], tools: unknown[] = []): unknown {
  const conversation: Conversation = { messages, tools, templateOptions: {} };
  return adapter.toRow(makeExportSample({ conversation }));
}

describe('sharegpt', () => {
  it('writes LLaMA-Factory rows: parallel calls as one function_call array, results as one observation, reasoning in <think>', () => {
    expect(adapter.needs).toEqual({ reward: false, advantage: false, conversation: true });
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample({ conversation: toolConversation() })), adapter.columns);
    expect(row).toEqual({
      conversations: [
        { from: 'human', value: 'What is 17 + 25? And 1 + 1? ✓' },
        {
          from: 'function_call',
          value: '<think>\nTwo sums.\n</think>\n\n[{"name":"add","arguments":{"a":17,"b":25}},{"name":"add","arguments":{"a":1,"b":1}}]',
        },
        { from: 'observation', value: '42\n</tool_response>\n<tool_response>\n2' },
        { from: 'gpt', value: '<think>\nBoth came back.\n</think>\n\nIt is 42, and 2 — done ✓.' },
      ],
      system: 'You add numbers.',
      tools:
        '[{"name":"add","description":"Adds two integers.","parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}}]',
    });
  });

  it('writes one call as an object and a turn without reasoning as it is; no system and no tools are ""', () => {
    const row = rowOf([
      { role: 'user', content: 'ls' },
      { role: 'assistant', content: 'Listing.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '' } }] },
      { role: 'tool', content: 'a.txt', tool_call_id: 'c1' },
      { role: 'assistant', content: '\n\nOne file.' },
    ]);
    expect(row).toEqual({
      conversations: [
        { from: 'human', value: 'ls' },
        { from: 'function_call', value: '{"name":"ls","arguments":{}}' },
        { from: 'observation', value: 'a.txt' },
        { from: 'gpt', value: '\n\nOne file.' },
      ],
      system: '',
      tools: '',
    });
  });

  it('skips conversations LLaMA-Factory would drop: turns that do not alternate, a system message after the first', () => {
    const toolThenUser: ConversationMessage[] = [
      { role: 'user', content: 'ls' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', content: 'a.txt', tool_call_id: 'c1' },
      { role: 'user', content: 'and now?' },
      { role: 'assistant', content: 'Done.' },
    ];
    expect(rowOf(toolThenUser)).toEqual({ skip: 'turns_not_alternating' });
    expect(
      rowOf([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
      ]),
    ).toEqual({ skip: 'turns_not_alternating' });
    expect(rowOf([{ role: 'assistant', content: 'hi' }])).toEqual({ skip: 'turns_not_alternating' });
    expect(
      rowOf([
        { role: 'user', content: 'a' },
        { role: 'system', content: 'new rules' },
        { role: 'assistant', content: 'c' },
      ]),
    ).toEqual({ skip: 'system_not_first' });
  });

  it('skips a sample whose conversation was not read', () => {
    expect(adapter.toRow(makeExportSample())).toEqual({ skip: 'no_conversation' });
  });
});
