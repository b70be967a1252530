import { afterEach, describe, expect, it } from 'vitest';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { createTrlSftAdapter } from '../../trainer-adapters/trl-sft/trl-sft-adapter.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { ADD_TOOL, toolConversation } from './conversation/tool-conversation.js';
import { expectParquetRoundTrip } from './expect-parquet-round-trip.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const TRL_MESSAGES = [
  { role: 'system', content: 'You add numbers.' },
  { role: 'user', content: 'What is 17 + 25? And 1 + 1? ✓' },
  {
    role: 'assistant',
    content: '\n\n',
    reasoning_content: '\nTwo sums.\n',
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'add', arguments: { a: 17, b: 25 } } },
      { id: 'c2', type: 'function', function: { name: 'add', arguments: { a: 1, b: 1 } } },
    ],
  },
  { role: 'tool', content: '42', tool_call_id: 'c1', name: 'add' },
  { role: 'tool', content: '2', tool_call_id: 'c2', name: 'add' },
  { role: 'assistant', content: 'It is 42, and 2 — done ✓.', reasoning_content: 'Both came back.' },
];

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => {
  temp?.remove();
  temp = undefined;
});

describe('trl-sft', () => {
  it('messages (the default shape): conversational rows with arguments as objects, reasoning as reasoning_content, tool names filled in', () => {
    const adapter = createTrainerAdapter('trl-sft');
    expect([adapter.shape, adapter.needs]).toEqual(['messages', { reward: false, advantage: false, conversation: true }]);
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample({ conversation: toolConversation() })), adapter.columns);
    expect(row).toEqual({ messages: TRL_MESSAGES, tools: [ADD_TOOL], chat_template_kwargs: { enable_thinking: true } });
  });

  it('prompt-completion: the reply alone is the completion', () => {
    const adapter = createTrlSftAdapter('prompt-completion');
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample({ conversation: toolConversation() })), adapter.columns);
    expect(row).toEqual({
      prompt: TRL_MESSAGES.slice(0, -1),
      completion: TRL_MESSAGES.slice(-1),
      tools: [ADD_TOOL],
      chat_template_kwargs: { enable_thinking: true },
    });
  });

  it('tokens: the sample as input_ids and its loss mask as completion_mask, without reading a conversation', () => {
    const adapter = createTrlSftAdapter('tokens');
    expect(adapter.needs.conversation).toBe(false);
    const exported = makeExportSample();
    const row = expectRowMatchesColumns(adapter.toRow(exported), adapter.columns);
    expect(row).toEqual({ input_ids: exported.sample.tokens, completion_mask: exported.sample.lossMask });
    expect(row.input_ids).not.toBe(exported.sample.tokens);
  });

  it('keeps broken arguments as the text the model wrote, and a name the request gave', () => {
    const conversation = {
      messages: [
        { role: 'user' as const, content: 'go' },
        {
          role: 'assistant' as const,
          content: '',
          tool_calls: [{ id: '', type: 'function' as const, function: { name: 'ls', arguments: '{"path": ' } }],
        },
        { role: 'tool' as const, content: 'error', name: 'ls' },
        { role: 'assistant' as const, content: '' },
      ],
      tools: [],
      templateOptions: {},
    };
    const row = createTrlSftAdapter('messages').toRow(makeExportSample({ conversation }));
    expect(row).toEqual({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'ls', arguments: '{"path": ' } }] },
        { role: 'tool', content: 'error', name: 'ls' },
        { role: 'assistant', content: '' },
      ],
      tools: [],
      chat_template_kwargs: {},
    });
  });

  it('skips a sample whose conversation was not read', () => {
    expect(createTrlSftAdapter('messages').toRow(makeExportSample())).toEqual({ skip: 'no_conversation' });
    expect(createTrlSftAdapter('prompt-completion').toRow(makeExportSample())).toEqual({ skip: 'no_conversation' });
  });

  it('round-trips every shape through Parquet, json columns read back by DuckDB as JSON', async () => {
    temp = makeTempDir();
    for (const shape of ['messages', 'prompt-completion', 'tokens']) {
      const adapter = createTrlSftAdapter(shape as 'messages');
      const row = adapter.toRow(makeExportSample({ conversation: toolConversation() }));
      await expectParquetRoundTrip(adapter, [row as Record<string, unknown>], temp.file(`${shape}.parquet`));
    }
  });
});
