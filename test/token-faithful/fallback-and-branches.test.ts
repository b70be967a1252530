import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimScript } from '../../sim/index.js';
import type { GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { answerReply, extendsCall, MODEL, orderedScript, startTokenFaithful, STEP_TOOL, stepReply } from './token-faithful-fixtures.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const SYSTEM: ChatCompletionMessageParam = { role: 'system', content: 'You read notes with the tool.' };

/** Sends one chat request and returns the assistant message, as a harness would append it (reasoning dropped). */
async function ask(client: OpenAI, messages: ChatCompletionMessageParam[], tools = [STEP_TOOL]): Promise<ChatCompletionMessageParam> {
  const message = (await client.chat.completions.create({ model: MODEL, messages, tools })).choices[0]!.message;
  return { role: 'assistant', content: message.content ?? '', ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) };
}

function toolResult(assistant: ChatCompletionMessageParam, content: string): ChatCompletionMessageParam {
  const call = (assistant as { tool_calls?: Array<{ id: string }> }).tool_calls?.[0];
  return { role: 'tool', tool_call_id: call?.id ?? 'none', content };
}

function modes(session: string): unknown[] {
  return setup!.gateway.store.listCalls(session).map((call) => call.metadata.tokenFaithful);
}

/** Two tool turns: [system, user, question, assistant 1, tool 1, assistant 2, tool 2] after both. */
async function twoToolTurns(client: OpenAI): Promise<ChatCompletionMessageParam[]> {
  const messages: ChatCompletionMessageParam[] = [
    SYSTEM,
    { role: 'user', content: 'Here is a list of notes.' },
    { role: 'user', content: 'Read them.' },
  ];
  for (let step = 1; step <= 2; step++) {
    const assistant = await ask(client, messages);
    messages.push(assistant, toolResult(assistant, `note ${step}`));
  }
  return messages;
}

describe('token-faithful fallback: a request that extends no earlier call is rendered fresh, and says why', () => {
  it('renders an edited history (a middle message dropped) fresh: history-edited, naming the call and the message', async () => {
    setup = await startTokenFaithful(orderedScript([stepReply(1), stepReply(2), answerReply('edited'), answerReply('again')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('edit'), apiKey: 'x', maxRetries: 0 });
    const messages = await twoToolTurns(client);
    const edited = messages.filter((_, index) => index !== 1);
    const answer = await ask(client, edited);
    expect(answer.content).toBe('\n\nedited');
    const calls = setup.gateway.store.listCalls('edit');
    expect(calls[2]!.metadata.tokenFaithful).toEqual({ mode: 'fresh', reason: 'history-edited', againstCallId: calls[1]!.id, divergedAt: 1 });
    expect(extendsCall(calls[2]!, calls[1]!)).toBe(false);
    // the chain goes on from the fresh call
    await ask(client, [...edited, answer, { role: 'user', content: 'Thanks.' }]);
    expect(setup.gateway.store.listCalls('edit')[3]!.metadata.tokenFaithful).toMatchObject({ mode: 'extend', extends: calls[2]!.id });
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { reasons: Record<string, number> } };
    expect(health.tokenFaithful.reasons).toEqual({ 'first-call': 1, 'history-edited': 1 });
  });

  it('extends the earlier call a rewound history still matches (a branch), not the newest', async () => {
    setup = await startTokenFaithful(orderedScript([stepReply(1), stepReply(2), answerReply('branch')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('branch'), apiKey: 'x', maxRetries: 0 });
    const messages = await twoToolTurns(client);
    // the second turn is dropped and the first tool result replaced: a retry from after the first assistant turn
    await ask(client, [...messages.slice(0, 4), toolResult(messages[3]!, 'a different note 1')]);
    const calls = setup.gateway.store.listCalls('branch');
    expect(calls[2]!.metadata.tokenFaithful).toMatchObject({ mode: 'extend', extends: calls[0]!.id });
    expect(extendsCall(calls[2]!, calls[0]!)).toBe(true);
    expect(extendsCall(calls[2]!, calls[1]!)).toBe(false);
  });

  it('renders fresh when the tools change (settings-changed) and when another conversation starts (unrelated-history)', async () => {
    setup = await startTokenFaithful(orderedScript([stepReply(1), answerReply('fewer tools'), answerReply('other')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('settings'), apiKey: 'x', maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [SYSTEM, { role: 'user', content: 'Read a note.' }];
    const assistant = await ask(client, messages);
    const otherTool = { ...STEP_TOOL, function: { ...STEP_TOOL.function, description: 'Read one note.' } };
    await ask(client, [...messages, assistant, toolResult(assistant, 'note 1')], [otherTool]);
    await ask(client, [
      { role: 'system', content: 'You write titles.' },
      { role: 'user', content: 'Title this.' },
    ]);
    const calls = setup.gateway.store.listCalls('settings');
    expect(modes('settings')).toEqual([
      { mode: 'fresh', reason: 'first-call' },
      { mode: 'fresh', reason: 'settings-changed', againstCallId: calls[0]!.id },
      { mode: 'fresh', reason: 'unrelated-history' },
    ]);
  });

  it('renders fresh after a completion cut by max tokens: its turn has no end-of-turn token to extend', async () => {
    const script: SimScript = { replies: [{ text: 'A long answer that was cut', finishReason: 'length' }, { text: 'Shorter.' }], otherwise: 'error' };
    setup = await startTokenFaithful(script);
    const client = new OpenAI({ baseURL: setup.openaiBase('cut'), apiKey: 'x', maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Say something long.' }];
    const first = await client.chat.completions.create({ model: MODEL, messages });
    expect(first.choices[0]!.finish_reason).toBe('length');
    await client.chat.completions.create({
      model: MODEL,
      messages: [...messages, { role: 'assistant', content: first.choices[0]!.message.content }, { role: 'user', content: 'Shorter.' }],
    });
    const calls = setup.gateway.store.listCalls('cut');
    expect(calls[1]!.metadata.tokenFaithful).toEqual({ mode: 'fresh', reason: 'earlier-completion-cut', againstCallId: calls[0]!.id });
  });

  it('sends a conversation it cannot render to the chat endpoint as usual (plain), saying why', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('never')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('plain'), apiKey: 'x', maxRetries: 0 });
    const broken: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_step', arguments: '{not json' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
    ];
    // vLLM refuses arguments that are not JSON with a 400; the gateway relays that answer
    await expect(client.chat.completions.create({ model: MODEL, messages: broken, tools: [STEP_TOOL] })).rejects.toMatchObject({ status: 400 });
    const [call] = setup.gateway.store.listCalls('plain');
    expect(call!.metadata.tokenFaithful).toMatchObject({ mode: 'plain', reason: 'render-failed', error: expect.stringContaining('JSON') });
    expect(setup.sim.log[0]!.endpoint).toBe('chat');
  });

  it('relays a backend error of the completions call to the harness and records it; the retry is served', async () => {
    const script: SimScript = {
      replies: [{ fault: { kind: 'http-error', status: 429, headers: { 'retry-after': '1' } } }, { text: 'Served.' }],
      otherwise: 'error',
    };
    // backend retries off: the 429 itself must reach the harness here
    setup = await startTokenFaithful(script, { gateway: { backendRetries: 0 } });
    const client = new OpenAI({ baseURL: setup.openaiBase('error'), apiKey: 'x', maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hi' }];
    await expect(client.chat.completions.create({ model: MODEL, messages })).rejects.toMatchObject({ status: 429 });
    const retry = await client.chat.completions.create({ model: MODEL, messages });
    expect(retry.choices[0]!.message.content).toBe('Served.');
    const calls = setup.gateway.store.listCalls('error');
    expect(calls.map((call) => [call.status, (call.metadata.tokenFaithful as { reason: string }).reason])).toEqual([
      ['backend_error', 'first-call'],
      ['ok', 'first-call'],
    ]);
    expect(setup.sim.log.map((record) => record.endpoint)).toEqual(['completions', 'completions']);
  });

  it('leaves models it does not cover on the chat endpoint', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('plain')]), { gateway: { tokenFaithful: ['some-other-model'] } });
    const client = new OpenAI({ baseURL: setup.openaiBase('uncovered'), apiKey: 'x', maxRetries: 0 });
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] });
    expect(setup.sim.log[0]!.endpoint).toBe('chat');
    expect(setup.gateway.store.listCalls('uncovered')[0]!.metadata).not.toHaveProperty('tokenFaithful');
  });
});
