import { describe, expect, it } from 'vitest';
import { ChatStreamAssembler } from '../../../gateway/backends/chat-stream-assembler.js';
import { responsesInputToMessages } from '../../../gateway/protocols/openai-responses/responses-input-to-messages.js';
import { responsesRequestToChat } from '../../../gateway/protocols/openai-responses/responses-request-to-chat.js';
import { ResponsesStreamTranslator } from '../../../gateway/protocols/openai-responses/responses-stream-translator.js';
import { ResponsesToolNames, translateResponsesTools } from '../../../gateway/protocols/openai-responses/responses-tools.js';
import { readResponsesEvents, doneItems } from './openai-responses-events.js';

const names = new ResponsesToolNames();

describe('input items to chat messages', () => {
  it('merges instructions and leading system/developer messages into one system message, and keeps a later one in place', () => {
    const { messages } = responsesInputToMessages(
      [
        { role: 'developer', content: 'Rule one.' },
        {
          type: 'message',
          role: 'system',
          content: [
            { type: 'input_text', text: 'Rule two' },
            { type: 'input_text', text: 'and three.' },
          ],
        },
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'Permissions changed.' },
        { role: 'user', content: 'go on' },
      ],
      'Be brief.',
      names,
    );
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.\n\nRule one.\n\nRule two\nand three.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Permissions changed.' },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('gathers one response (reasoning, text, parallel tool calls) into one assistant message', () => {
    const { messages } = responsesInputToMessages(
      [
        { role: 'user', content: 'list both' },
        { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'Two calls.' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Listing.' }] },
        { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{"path":"a"}' },
        { type: 'function_call', call_id: 'c2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'spawned' }] },
        { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c3', output: 'Done!' },
      ],
      undefined,
      names,
    );
    expect(messages).toEqual([
      { role: 'user', content: 'list both' },
      {
        role: 'assistant',
        content: 'Listing.',
        reasoning: 'Two calls.',
        reasoning_content: 'Two calls.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"a"}' } },
          { id: 'c2', type: 'function', function: { name: 'multi_agent_v1__spawn_agent', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      { role: 'tool', tool_call_id: 'c2', content: 'spawned' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c3', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } }],
      },
      { role: 'tool', tool_call_id: 'c3', content: 'Done!' },
    ]);
  });

  it('drops hosted-tool items and encrypted-only reasoning, and says so', () => {
    const { messages, droppedItems } = responsesInputToMessages(
      [
        { role: 'user', content: 'search' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Found nothing.' }] },
      ],
      undefined,
      names,
    );
    expect(droppedItems).toEqual(['reasoning', 'web_search_call']);
    expect(messages).toEqual([
      { role: 'user', content: 'search' },
      { role: 'assistant', content: 'Found nothing.' },
    ]);
  });

  it('uses reasoning summaries when a reasoning item has no content', () => {
    const { messages } = responsesInputToMessages(
      [
        { role: 'user', content: 'q' },
        {
          type: 'reasoning',
          summary: [
            { type: 'summary_text', text: 'First.' },
            { type: 'summary_text', text: 'Second.' },
          ],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A.' }] },
      ],
      undefined,
      names,
    );
    expect(messages[1]).toMatchObject({ reasoning_content: 'First.\n\nSecond.', content: 'A.' });
  });
});

describe('tools and settings', () => {
  it('keeps a tool_choice only with tools to choose among, and records what it did not forward', () => {
    const { chatBody, notes } = responsesRequestToChat(
      { input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'auto', store: false, include: [] },
      [{ role: 'user', content: 'x' }],
    );
    expect(chatBody).not.toHaveProperty('tools');
    expect(chatBody).not.toHaveProperty('tool_choice');
    expect(notes).toEqual({ droppedTools: ['web_search'], droppedItems: [], notForwarded: ['store', 'include', 'tool_choice'] });
  });

  it('maps a tool_choice naming a namespace member to its flattened chat name', () => {
    const { chatBody } = responsesRequestToChat(
      {
        input: 'x',
        tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'close' }] }],
        tool_choice: { type: 'function', name: 'close' },
      },
      [{ role: 'user', content: 'x' }],
    );
    expect(chatBody.tool_choice).toEqual({ type: 'function', function: { name: 'ns__close' } });
  });

  it('names dropped hosted tools by type and name', () => {
    expect(translateResponsesTools([{ type: 'mcp', name: 'github' }, { type: 'image_generation' }]).droppedTools).toEqual([
      'mcp:github',
      'image_generation',
    ]);
  });
});

function translate(chunks: Array<Record<string, unknown>>, toolNames = names): ReturnType<typeof readResponsesEvents> {
  const translator = new ResponsesStreamTranslator({ id: 'resp_t', createdAt: 1, model: 'm', request: {} }, toolNames);
  return readResponsesEvents(chunks.map((chunk) => translator.chunk(chunk)).join('') + translator.end());
}

const delta = (value: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ index: 0, delta: value, finish_reason: finish }] });

describe('the stream translator', () => {
  it('turns parallel tool calls into one item each, and drops the whitespace vLLM sends before them', () => {
    const events = translate([
      delta({ role: 'assistant', content: '' }),
      delta({ reasoning: 'Two.', reasoning_content: 'Two.' }),
      delta({ content: '\n\n' }),
      delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'ls', arguments: '' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"path": "a"}' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'ls', arguments: '{"path": "b"}' } }] }, 'tool_calls'),
      { choices: [], usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 } },
    ]);
    expect(doneItems(events)).toEqual([
      {
        id: 'rs_t_0',
        type: 'reasoning',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'Two.' }],
        encrypted_content: null,
        status: 'completed',
      },
      { id: 'fc_t_1', type: 'function_call', status: 'completed', call_id: 'call_a', name: 'ls', arguments: '{"path": "a"}' },
      { id: 'fc_t_2', type: 'function_call', status: 'completed', call_id: 'call_b', name: 'ls', arguments: '{"path": "b"}' },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { usage: { input_tokens: 10, output_tokens: 7, total_tokens: 17 } },
    });
  });

  it('sends a whitespace-only reply without tool calls as the message, at the end', () => {
    const events = translate([delta({ content: '\n' }), delta({ content: ' ' }, 'stop')]);
    expect(doneItems(events)).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '\n ' })] })]);
  });

  it('answers a stream that failed before any chunk with created, error and response.failed', () => {
    const translator = new ResponsesStreamTranslator({ id: 'resp_f', createdAt: 1, model: 'm', request: {} }, names);
    const events = readResponsesEvents(translator.fail({ code: 'context_length_exceeded', message: 'too long', param: null }));
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(events.at(-1)).toMatchObject({ response: { status: 'failed', error: { code: 'context_length_exceeded', message: 'too long' } } });
  });
});

describe('the stream translator and the recorded body', () => {
  it('read reasoning under the same name: the first a delta holds a string under, an empty one included', () => {
    // a server that opens with an empty `reasoning` and also says `reasoning_content`: the call is stored with
    // `reasoning` (chat-stream-assembler.ts), so the harness must be shown that text, not the other name's
    const chunks = [
      delta({ role: 'assistant', reasoning: '' }),
      delta({ reasoning_content: 'Other.' }),
      delta({ reasoning: 'Two.' }),
      delta({ content: 'A.' }, 'stop'),
    ];
    const assembler = new ChatStreamAssembler();
    for (const chunk of chunks) assembler.add(chunk);
    const recorded = (assembler.responseBody() as { choices: Array<{ message: Record<string, unknown> }> }).choices[0]?.message;
    expect(recorded).toMatchObject({ reasoning: 'Two.' });
    expect(recorded).not.toHaveProperty('reasoning_content');
    expect(doneItems(translate(chunks))[0]).toMatchObject({ type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Two.' }] });
  });
});
