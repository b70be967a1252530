import { describe, expect, it } from 'vitest';
import { parseAnthropicBody } from '../../../gateway/protocols/anthropic-messages/anthropic-messages-schema.js';
import { anthropicErrorType, contextLengthMessage } from '../../../gateway/protocols/anthropic-messages/anthropic-error-body.js';
import { toChatRequest } from '../../../gateway/protocols/anthropic-messages/anthropic-chat-request.js';
import { AnthropicStreamEvents } from '../../../gateway/protocols/anthropic-messages/anthropic-stream-events.js';
import { toAnthropicMessage } from '../../../gateway/protocols/anthropic-messages/anthropic-message-body.js';
import { SseDecoder } from '../../../core/sse/sse-decoder.js';

function translate(body: Record<string, unknown>) {
  return toChatRequest(parseAnthropicBody({ model: 'claude-x', max_tokens: 10, ...body }, 'messages'));
}

const PNG = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };

describe('Anthropic request -> chat request', () => {
  it('joins text blocks, turns images into data-URL image_url parts and keeps url images', () => {
    const { chatBody } = translate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
          ],
        },
        { role: 'assistant', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: PNG },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: 'user', content: 'a\nb' },
      { role: 'assistant', content: 'ok' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
    ]);
  });

  it('turns tool_use into tool_calls and each tool_result into a tool message; errors are marked, images follow', () => {
    const { chatBody } = translate({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'plan', signature: 's' },
            { type: 'redacted_thinking', data: 'enc' },
            { type: 'text', text: 'Calling.' },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } },
            { type: 'tool_use', id: 'toolu_2', name: 'Shot', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'text', text: 'no such file' },
                { type: 'text', text: 'sorry' },
              ],
              is_error: true,
            },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [
                { type: 'text', text: 'screenshot:' },
                { type: 'image', source: PNG },
              ],
            },
            { type: 'text', text: 'continue' },
          ],
        },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Calling.',
        reasoning: 'plan',
        reasoning_content: 'plan',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"path":"a"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'Shot', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: no such file\nsorry' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'screenshot:' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'text', text: 'continue' },
        ],
      },
    ]);
  });

  it('puts leading system messages into the system prompt, keeps later ones in place, and removes the billing header', () => {
    const { chatBody } = translate({
      system: [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197.fbe; cc_entrypoint=sdk-cli;' },
        { type: 'text', text: 'You are an agent.' },
      ],
      messages: [
        { role: 'system', content: 'Early rule.' },
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'Late rule.' }] },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: 'system', content: 'You are an agent.\nEarly rule.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Late rule.' },
    ]);
    expect(translate({ system: 'x-anthropic-billing-header: cch=1;', messages: [{ role: 'user', content: 'hi' }] }).chatBody.messages).toEqual([
      { role: 'user', content: 'hi' },
    ]);
  });

  it('maps tool_choice auto/any/tool/none and disable_parallel_tool_use', () => {
    const tools = [{ name: 'Bash', input_schema: { type: 'object' } }];
    const choices: Array<[Record<string, unknown>, unknown]> = [
      [{ type: 'auto' }, 'auto'],
      [{ type: 'any' }, 'required'],
      [{ type: 'none' }, 'none'],
      [
        { type: 'tool', name: 'Bash' },
        { type: 'function', function: { name: 'Bash' } },
      ],
    ];
    for (const [choice, expected] of choices)
      expect(translate({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: choice }).chatBody.tool_choice).toEqual(expected);
    const serial = translate({
      messages: [{ role: 'user', content: 'x' }],
      tools,
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    }).chatBody;
    expect(serial.parallel_tool_calls).toBe(false);
  });

  it('maps sampling, stop sequences and the thinking switch; records what it does not forward', () => {
    const { chatBody, metadata } = translate({
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 20,
      stop_sequences: ['END'],
      thinking: { type: 'disabled' },
      metadata: { user_id: 'u1' },
      context_management: { edits: [] },
      output_config: { effort: 'high' },
      service_tier: 'auto',
    });
    expect(chatBody).toEqual({
      model: 'claude-x',
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 10,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 20,
      stop: ['END'],
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(metadata).toEqual({
      thinkingType: 'disabled',
      anthropicUserId: 'u1',
      ignoredFields: ['context_management', 'output_config', 'service_tier'],
    });
    expect(translate({ messages: [{ role: 'user', content: 'x' }] }).chatBody).not.toHaveProperty('chat_template_kwargs');
  });

  it('continues a final assistant message (prefill) instead of opening a new turn', () => {
    const { chatBody } = translate({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'The answer is' },
      ],
    });
    expect(chatBody).toMatchObject({ add_generation_prompt: false, continue_final_message: true });
  });
});

describe('Anthropic answers from chat completions', () => {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: 'chatcmpl-1',
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  });

  function events(chunks: Array<Record<string, unknown>>, stopSequences: string[] = []) {
    const stream = new AnthropicStreamEvents({ model: 'claude-x', stopSequences });
    const text = chunks.map((entry) => stream.chunk(entry)).join('') + stream.end(0);
    const decoder = new SseDecoder();
    return [...decoder.push(new TextEncoder().encode(text)), ...decoder.flush()].map((event) => JSON.parse(event.data) as Record<string, unknown>);
  }

  it('streams whitespace-only text only once real text follows, and never before a tool call', () => {
    const parsed = events([
      { ...chunk({ role: 'assistant', content: '' }), prompt_token_ids: [1, 2, 3] },
      chunk({ content: '\n\n' }),
      chunk({ content: 'Hi' }),
      chunk({ content: '\n\n' }),
      chunk({ tool_calls: [{ index: 0, id: 'call-1', type: 'function', function: { name: 'Read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }),
      chunk({ content: '' }, { finish_reason: 'tool_calls' }),
      { id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 2 } } },
    ]);
    expect(parsed.map((event) => event.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(parsed[0]).toMatchObject({ message: { id: 'msg_chatcmpl-1', model: 'claude-x', usage: { input_tokens: 3 } } });
    expect(parsed[3]).toMatchObject({ index: 0, delta: { type: 'text_delta', text: '\n\nHi' } });
    expect(parsed[4]).toMatchObject({ index: 0, delta: { type: 'text_delta', text: '\n\n' } });
    expect(parsed[6]).toMatchObject({ index: 1, content_block: { type: 'tool_use', id: 'toolu_call-1', name: 'Read', input: {} } });
    expect(parsed[9]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 1, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 2 },
    });
  });

  it('builds the same blocks and ids from a whole body as from the stream', () => {
    const message = toAnthropicMessage(
      {
        id: 'chatcmpl-1',
        model: 'qwen',
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            stop_reason: 'END',
            message: { content: '\n\n', reasoning: '\nhm\n', tool_calls: [{ id: 'call-1', function: { name: 'Read', arguments: '{"a":1}' } }] },
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 4 },
      },
      { model: 'claude-x', stopSequences: ['END'] },
    );
    expect(message).toEqual({
      id: 'msg_chatcmpl-1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: '\nhm\n', signature: expect.stringMatching(/^tokentap\./) },
        { type: 'tool_use', id: 'toolu_call-1', name: 'Read', input: { a: 1 } },
      ],
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
      usage: { input_tokens: 5, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    const streamed = events([chunk({ reasoning: '\nhm\n' }), chunk({ content: '' }, { finish_reason: 'stop', stop_reason: 'END' })], ['END']);
    expect(streamed.find((event) => (event.delta as { type?: string } | undefined)?.type === 'signature_delta')?.delta).toEqual({
      type: 'signature_delta',
      signature: (message.content as Array<{ signature?: string }>)[0]?.signature,
    });
  });
});

describe('Anthropic error wording', () => {
  it('maps statuses to Anthropic error types', () => {
    expect([400, 401, 403, 404, 413, 429, 500, 502, 503, 504, 529].map(anthropicErrorType)).toEqual([
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'not_found_error',
      'request_too_large',
      'rate_limit_error',
      'api_error',
      'api_error',
      'overloaded_error',
      'timeout_error',
      'overloaded_error',
    ]);
  });

  it('rewords vLLM context-length messages as "prompt is too long" with the numbers Claude Code reads', () => {
    expect(
      contextLengthMessage(
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      ),
    ).toBe(
      'prompt is too long: input length and `max_tokens` exceed context limit: 4000 + 1000 > 4096, decrease input length or `max_tokens` and try again',
    );
    expect(
      contextLengthMessage(
        "This model's maximum context length is 4096 tokens. However, you requested 100 output tokens and your prompt contains 5000 input tokens, for a total of 5100 tokens.",
      ),
    ).toBe('prompt is too long: 5000 tokens > 4096 maximum');
    expect(contextLengthMessage('The prompt is longer than the context')).toBe('prompt is too long: The prompt is longer than the context');
  });
});
