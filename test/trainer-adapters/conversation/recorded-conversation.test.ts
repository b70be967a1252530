import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimScript } from '../../../sim/index.js';
import type { CallBodies } from '../../../store/index.js';
import { readConversation } from '../../../trainer-adapters/conversation/read-conversation.js';
import { readConversationMessage } from '../../../trainer-adapters/conversation/read-conversation-message.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { recordedChat, type AssistantMessage } from '../../reconstruct/chat-through-gateway.js';
import { orderedScript, startTokenFaithful } from '../../token-faithful/token-faithful-fixtures.js';

const SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: '42' }, times: 'forever', reasoning: 'The calculator says 42.', content: 'The answer is 42 — ✓.' },
    {
      match: { lastUserContains: '17 + 25' },
      times: 'forever',
      reasoning: 'I will use the tool.',
      toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }],
    },
  ],
  otherwise: 'error',
};
const CALCULATOR = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Adds two integers.',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
  },
};
const QUESTION = 'What is 17 + 25? Use the calculator.';
/** The same replies in order: a token-id prompt has no messages to match on. */
const FAITHFUL_SCRIPT = orderedScript([
  { reasoning: 'I will use the tool.', toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }] },
  { reasoning: 'The calculator says 42.', content: 'The answer is 42 — ✓.' },
]);

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function bodiesOf(callId: string): CallBodies {
  const bodies = setup!.gateway.store.getCallBodies(callId);
  if (bodies === null) throw new Error(`no bodies for ${callId}`);
  return bodies;
}

/** The two-call tool loop of a chat harness; returns each call's id, the messages it sent and the reply it read. */
async function toolLoop(baseUrl: string, stream: boolean): Promise<Array<{ callId: string; sent: unknown[]; reply: AssistantMessage }>> {
  const messages: unknown[] = [{ role: 'user', content: QUESTION }];
  const calls = [];
  for (let turn = 0; turn < 2; turn++) {
    const sent = [...messages];
    const { message, callId } = await recordedChat(baseUrl, { messages: sent, tools: [CALCULATOR] }, stream);
    calls.push({ callId, sent, reply: message });
    messages.push({ role: 'assistant', ...message });
    for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: '42' });
  }
  return calls;
}

describe('readConversation on calls recorded through the gateway', () => {
  for (const stream of [false, true]) {
    it(`a chat tool loop (${stream ? 'streamed' : 'not streamed'}): the messages sent, then the reply the harness read`, async () => {
      setup = await startGatewayWithSim({ script: SCRIPT });
      for (const { callId, sent, reply } of await toolLoop(setup.openaiBase('chat'), stream)) {
        const conversation = readConversation(bodiesOf(callId));
        expect(conversation?.messages).toEqual([...sent, { role: 'assistant', ...reply }].map(readConversationMessage));
        expect(conversation?.tools).toEqual([CALCULATOR]);
      }
    });
  }

  it('a streamed call is stored with an assembled body, which is what it reads', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT });
    const calls = await toolLoop(setup.openaiBase('stream'), true);
    expect(calls[0]!.reply.tool_calls).toHaveLength(1);
    for (const { callId } of calls) {
      const bodies = bodiesOf(callId);
      expect(bodies.responseStream).toContain('data: ');
      expect(bodies.responseBody).toMatchObject({ choices: [{ index: 0, message: { role: 'assistant' } }] });
      expect(readConversation(bodies)).not.toBeNull();
    }
  });

  it('an Anthropic Messages tool loop: the chat translation the backend rendered, thinking as reasoning', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT }, { model: 'Qwen/Qwen3-8B' });
    const client = new Anthropic({ baseURL: `${setup.url}/s/claude`, apiKey: 'sk-ant-harness', maxRetries: 0 });
    const tools = [
      { name: 'calculator', description: 'Adds two integers.', input_schema: CALCULATOR.function.parameters as Anthropic.Tool['input_schema'] },
    ];
    const messages: MessageParam[] = [{ role: 'user', content: QUESTION }];
    const params = (): MessageCreateParamsNonStreaming => ({
      model: 'claude-test',
      max_tokens: 2000,
      system: 'You are careful.',
      messages: [...messages],
      tools,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    const first: Message = await client.messages.create(params());
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    if (toolUse?.type !== 'tool_use') throw new Error('no tool_use');
    messages.push({ role: 'assistant', content: first.content as MessageParam['content'] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '42' }] });
    const second = await client.messages.stream(params()).finalMessage();

    const [, lastCall] = setup.gateway.store.listCalls('claude');
    const conversation = readConversation(bodiesOf(lastCall!.id));
    const thinking = (message: Message): string => (message.content.find((block) => block.type === 'thinking') as { thinking: string }).thinking;
    const text = (message: Message): string => (message.content.find((block) => block.type === 'text') as { text: string }).text;
    expect(conversation?.messages).toEqual([
      { role: 'system', content: 'You are careful.' },
      { role: 'user', content: QUESTION },
      {
        role: 'assistant',
        content: '',
        reasoning: thinking(first),
        tool_calls: [{ id: toolUse.id, type: 'function', function: { name: 'calculator', arguments: '{"a":17,"b":25}' } }],
      },
      { role: 'tool', content: '42', tool_call_id: toolUse.id },
      { role: 'assistant', content: expect.stringContaining(text(second)), reasoning: thinking(second) },
    ]);
    expect(conversation?.messages.at(-1)?.content.trim()).toBe('The answer is 42 — ✓.');
    expect(conversation?.tools).toEqual([
      { type: 'function', function: { name: 'calculator', description: 'Adds two integers.', parameters: CALCULATOR.function.parameters } },
    ]);
    expect(conversation?.templateOptions).toEqual({ enable_thinking: true });
  });

  it('a Responses call: instructions as the system message, the input, then the reply', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT });
    const client = new OpenAI({ baseURL: setup.openaiBase('codex'), apiKey: 'sk-harness', maxRetries: 0 });
    const response = await client.responses.create({
      model: 'Qwen/Qwen3-8B',
      instructions: 'You are careful.',
      input: QUESTION,
      tools: [{ type: 'function', name: 'calculator', parameters: CALCULATOR.function.parameters, strict: false }],
    });
    const call = response.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function_call');
    const [recorded] = setup.gateway.store.listCalls('codex');
    const conversation = readConversation(bodiesOf(recorded!.id));
    expect(conversation?.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are careful.' },
      { role: 'user', content: QUESTION },
    ]);
    expect(conversation?.messages[2]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ function: { name: 'calculator', arguments: call.arguments } }],
    });
    expect(JSON.parse(conversation!.messages[2]!.tool_calls![0]!.function.arguments)).toEqual({ a: 17, b: 25 });
  });

  describe('token-faithful mode', () => {
    it("a chat call reads the harness's request (the backend got prompt ids) and the chat-shaped reply", async () => {
      setup = await startTokenFaithful(FAITHFUL_SCRIPT);
      for (const { callId, sent, reply } of await toolLoop(setup.openaiBase('faithful'), true)) {
        const bodies = bodiesOf(callId);
        expect(Array.isArray((bodies.backendRequestBody as { prompt: unknown }).prompt)).toBe(true);
        expect(readConversation(bodies)?.messages).toEqual([...sent, { role: 'assistant', ...reply }].map(readConversationMessage));
      }
    });

    it('an Anthropic call reads the chat request its prompt was rendered from (system prompt and all)', async () => {
      setup = await startTokenFaithful(FAITHFUL_SCRIPT, { gateway: { model: 'Qwen/Qwen3-8B' } });
      const client = new Anthropic({ baseURL: `${setup.url}/s/claude`, apiKey: 'sk-ant-harness', maxRetries: 0 });
      const answer = await client.messages.create({
        model: 'claude-test',
        max_tokens: 2000,
        system: 'You are careful.',
        messages: [{ role: 'user', content: QUESTION }],
      });
      const [call] = setup.gateway.store.listCalls('claude');
      expect(call?.metadata.tokenFaithful).toMatchObject({ mode: 'fresh' });
      const bodies = bodiesOf(call!.id);
      expect(Array.isArray((bodies.backendRequestBody as { prompt: unknown }).prompt)).toBe(true);
      const conversation = readConversation(bodies);
      expect(conversation?.messages.slice(0, 2)).toEqual([
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: QUESTION },
      ]);
      const text = answer.content
        .filter((block) => block.type === 'text')
        .map((block) => (block as { text: string }).text)
        .join('');
      expect(conversation?.messages).toHaveLength(3);
      expect(conversation?.messages[2]?.role).toBe('assistant');
      expect(conversation?.messages[2]?.content.trim()).toBe(text.trim());
    });
  });
});
