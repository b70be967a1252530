import { describe, expect, it } from 'vitest';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { ADD_TOOL, toolConversation } from './conversation/tool-conversation.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

describe('sft-messages', () => {
  const adapter = createTrainerAdapter('sft-messages');

  it('writes OpenAI fine-tuning rows: arguments as the JSON text the model wrote, call ids, no reasoning, no weight', () => {
    expect(adapter.needs).toEqual({ reward: false, advantage: false, conversation: true });
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample({ conversation: toolConversation() })), adapter.columns);
    expect(row).toEqual({
      messages: [
        { role: 'system', content: 'You add numbers.' },
        { role: 'user', content: 'What is 17 + 25? And 1 + 1? ✓' },
        {
          role: 'assistant',
          content: '\n\n',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 17, "b": 25}' } },
            { id: 'c2', type: 'function', function: { name: 'add', arguments: '{"a": 1, "b": 1}' } },
          ],
        },
        { role: 'tool', content: '42', tool_call_id: 'c1' },
        { role: 'tool', content: '2', tool_call_id: 'c2' },
        { role: 'assistant', content: 'It is 42, and 2 — done ✓.' },
      ],
      tools: [ADD_TOOL],
    });
    expect(adapter.toJson?.(row)).toBe(row);
  });

  it('leaves out the content of an assistant message that only calls tools, and a JSONL line leaves out empty tools', () => {
    const conversation = {
      messages: [
        { role: 'user' as const, content: 'go' },
        { role: 'assistant' as const, content: '', tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'ls', arguments: '{}' } }] },
        { role: 'tool' as const, content: '', tool_call_id: 'c1', name: 'ls' },
        { role: 'assistant' as const, content: '' },
      ],
      tools: [],
      templateOptions: {},
    };
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample({ conversation })), adapter.columns);
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', content: '', tool_call_id: 'c1' },
      { role: 'assistant', content: '' },
    ];
    expect(row).toEqual({ messages, tools: [] });
    expect(adapter.toJson?.(row)).toEqual({ messages });
  });

  it('skips a sample whose conversation was not read', () => {
    expect(adapter.toRow(makeExportSample())).toEqual({ skip: 'no_conversation' });
  });
});
