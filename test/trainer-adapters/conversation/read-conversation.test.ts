import { describe, expect, it } from 'vitest';
import { readConversation } from '../../../trainer-adapters/conversation/read-conversation.js';
import type { CallBodies } from '../../../store/index.js';

const TOOL = { type: 'function', function: { name: 'add', parameters: { type: 'object' } } };
const MESSAGES = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Add 1 and 2.' },
];
const REPLY = { role: 'assistant', content: '3', reasoning: 'easy' };

function bodies(overrides: Partial<CallBodies>): CallBodies {
  return {
    requestBody: { model: 'm', messages: MESSAGES },
    backendRequestBody: { model: 'm', messages: MESSAGES, tools: [TOOL], chat_template_kwargs: { enable_thinking: true } },
    chatRequestBody: null,
    responseBody: { object: 'chat.completion', choices: [{ index: 0, message: REPLY, finish_reason: 'stop' }] },
    responseStream: null,
    ...overrides,
  };
}

describe('readConversation', () => {
  it("reads the backend request's messages, tools and chat_template_kwargs, then the reply as the final assistant message", () => {
    expect(readConversation(bodies({}))).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Add 1 and 2.' },
        { role: 'assistant', content: '3', reasoning: 'easy' },
      ],
      tools: [TOOL],
      templateOptions: { enable_thinking: true },
    });
  });

  it('reads choice 0 whatever its place in the list', () => {
    const responseBody = {
      choices: [
        { index: 1, message: { role: 'assistant', content: 'other' } },
        { index: 0, message: { role: 'assistant', content: 'first' } },
      ],
    };
    expect(readConversation(bodies({ responseBody }))?.messages.at(-1)).toEqual({ role: 'assistant', content: 'first' });
  });

  it('reads no reply from a raw stream without the assembled body the gateway stores beside it', () => {
    const responseStream = 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"3"}}]}\n\ndata: [DONE]\n\n';
    expect(readConversation(bodies({ responseBody: null, responseStream }))).toBeNull();
  });

  it('is null for a call without a reply (failed before it answered)', () => {
    expect(readConversation(bodies({ responseBody: null }))).toBeNull();
    expect(readConversation(bodies({ responseBody: { error: { message: 'boom' } } }))).toBeNull();
  });

  it('is null for a completions call and for messages text cannot carry', () => {
    const completions = {
      requestBody: { prompt: 'hi' },
      backendRequestBody: { prompt: 'hi' },
      responseBody: { choices: [{ index: 0, text: 'yo' }] },
    };
    expect(readConversation(bodies(completions))).toBeNull();
    const image = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] };
    expect(readConversation(bodies({ backendRequestBody: { messages: [image] } }))).toBeNull();
  });

  it('defaults tools to [] and template options to {}', () => {
    const conversation = readConversation(bodies({ backendRequestBody: { messages: MESSAGES } }));
    expect(conversation?.tools).toEqual([]);
    expect(conversation?.templateOptions).toEqual({});
  });

  it('joins a continue_final_message prefill and the reply that continues it', () => {
    const backendRequestBody = {
      messages: [...MESSAGES, { role: 'assistant', content: 'The sum is ' }],
      continue_final_message: true,
      add_generation_prompt: false,
    };
    const responseBody = { choices: [{ index: 0, message: { role: 'assistant', content: '3.' } }] };
    expect(readConversation(bodies({ backendRequestBody, responseBody }))?.messages.slice(-2)).toEqual([
      { role: 'user', content: 'Add 1 and 2.' },
      { role: 'assistant', content: 'The sum is 3.' },
    ]);
  });

  describe('token-faithful calls (the backend got a token-id prompt)', () => {
    const backendRequestBody = { model: 'm', prompt: [1, 2, 3], return_token_ids: true };

    it("reads the harness's chat request", () => {
      const requestBody = { model: 'm', messages: MESSAGES, tools: [TOOL], chat_template_kwargs: { enable_thinking: false } };
      expect(readConversation(bodies({ requestBody, backendRequestBody }))).toEqual({
        messages: [...MESSAGES, { role: 'assistant', content: '3', reasoning: 'easy' }],
        tools: [TOOL],
        templateOptions: { enable_thinking: false },
      });
    });

    it('reads the chat request the prompt was rendered from, whatever the front door (schema 4 on)', () => {
      const anthropic = {
        model: 'claude',
        max_tokens: 10,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '3' }] }],
      };
      const chatRequestBody = { model: 'm', messages: MESSAGES, tools: [TOOL], chat_template_kwargs: { enable_thinking: true } };
      expect(readConversation(bodies({ requestBody: anthropic, backendRequestBody, chatRequestBody }))).toEqual({
        messages: [...MESSAGES, { role: 'assistant', content: '3', reasoning: 'easy' }],
        tools: [TOOL],
        templateOptions: { enable_thinking: true },
      });
    });

    it('without a recorded chat request (older records), has no conversation for an Anthropic or Responses request, which would need translating', () => {
      const anthropic = { model: 'claude', max_tokens: 10, system: 'Be brief.', messages: [{ role: 'user', content: 'Add 1 and 2.' }] };
      const anthropicTools = {
        model: 'claude',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'add', input_schema: { type: 'object' } }],
      };
      const toolResult = {
        model: 'claude',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '3' }] }],
      };
      const responses = { model: 'm', input: 'Add 1 and 2.' };
      for (const requestBody of [anthropic, anthropicTools, toolResult, responses]) {
        expect(readConversation(bodies({ requestBody, backendRequestBody }))).toBeNull();
      }
    });
  });
});
