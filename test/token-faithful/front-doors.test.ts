import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Message } from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import type { ChatCompletionMessage, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { CallRow } from '../../store/types.js';
import { expectCallsMatchSim } from '../helpers/expect-calls-match-sim.js';
import type { GatewayWithSim } from '../helpers/gateway-with-sim.js';
import {
  answerReply,
  expectPromptChain,
  MODEL,
  orderedScript,
  startTokenFaithful,
  STEP_RESPONSES_TOOL,
  STEP_TOOL,
  stepReply,
} from './token-faithful-fixtures.js';

const ANSWER = 'Both notes are read.';
const SCRIPT = orderedScript([stepReply(1), stepReply(2), answerReply(ANSWER)]);
const REASONING = (step: number): string => `\nStep ${step}: I read the next note.\n`;

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** What every front door must show: one chain, recorded ids equal to the simulator's, completions sent token-in. */
function expectFaithfulSession(session: string, frontDoor: string): CallRow[] {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expectCallsMatchSim(calls, setup!.sim.log);
  expectPromptChain(calls);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
  expect(calls.map((call) => call.frontDoor)).toEqual([frontDoor, frontDoor, frontDoor]);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  for (const call of calls) {
    const sent = setup!.gateway.store.getCallBodies(call.id)?.backendRequestBody as { prompt: number[]; return_token_ids: boolean };
    expect(sent.prompt).toEqual(Array.from(call.promptTokenIds!));
    expect(sent.return_token_ids).toBe(true);
  }
  const body = setup!.gateway.store.getCallBodies(calls[0]!.id)?.responseBody as {
    object: string;
    choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
  };
  expect(body.object).toBe('chat.completion');
  expect(body.choices[0]).toMatchObject({
    finish_reason: 'tool_calls',
    message: { reasoning: REASONING(1), tool_calls: [{ function: { name: 'read_step', arguments: '{"step": 1, "label": "note 1"}' } }] },
  });
  expect(setup!.sim.log.every((record) => record.endpoint === 'completions')).toBe(true);
  return calls;
}

describe('Chat Completions in token-faithful mode', () => {
  // streamInterval 4: the backend sends four tokens per completions chunk, as vLLM's --stream-interval does
  for (const [stream, streamInterval] of [
    [false, 1],
    [true, 1],
    [true, 4],
  ] as const) {
    it(`answers parsed reasoning, tool calls and content (${stream ? 'streamed' : 'not streamed'}${streamInterval > 1 ? `, ${streamInterval} tokens per backend chunk` : ''}) and records the simulator's ids`, async () => {
      setup = await startTokenFaithful(SCRIPT, { sim: { streamInterval } });
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'unused', maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Read two notes.' }];
      const answers: ChatCompletionMessage[] = [];
      const finishes: string[] = [];
      for (let turn = 0; turn < 3; turn++) {
        const request = { model: MODEL, messages, tools: [STEP_TOOL] };
        const { message, finish } = stream ? await streamedTurn(client, request) : await wholeTurn(client, request);
        answers.push(message);
        finishes.push(finish);
        // this harness sends the reasoning back, as vLLM's own clients may
        messages.push(message as ChatCompletionMessageParam);
        for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: 'noted' });
      }
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map((message) => (message as unknown as { reasoning: string }).reasoning)).toEqual([
        REASONING(1),
        REASONING(2),
        '\nI have read every note.\n',
      ]);
      expect(answers[0]!.tool_calls).toEqual([
        {
          id: expect.stringMatching(/^chatcmpl-tool-/),
          type: 'function',
          function: { name: 'read_step', arguments: '{"step": 1, "label": "note 1"}' },
        },
      ]);
      expect(answers[1]!.tool_calls?.[0]).toMatchObject({ function: { name: 'read_step', arguments: '{"step": 2, "label": "note 2"}' } });
      expect(answers[2]).toMatchObject({ content: `\n\n${ANSWER}` });
      expect(answers[2]!.tool_calls ?? []).toEqual([]);
      expectFaithfulSession('chat', 'openai-chat');
    });
  }
});

type ChatRequest = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

async function wholeTurn(client: OpenAI, request: ChatRequest): Promise<{ message: ChatCompletionMessage; finish: string }> {
  const completion = await client.chat.completions.create(request);
  return { message: completion.choices[0]!.message, finish: completion.choices[0]!.finish_reason };
}

/** Gathers the deltas itself: the SDK's stream helper keeps only the last piece of fields it does not know (reasoning). */
async function streamedTurn(client: OpenAI, request: ChatRequest): Promise<{ message: ChatCompletionMessage; finish: string }> {
  const message = {
    role: 'assistant',
    content: null as string | null,
    reasoning: '',
    tool_calls: [] as Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>,
  };
  let finish = '';
  for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const delta = choice.delta as typeof choice.delta & { reasoning?: string };
    if (delta.reasoning !== undefined) message.reasoning += delta.reasoning;
    if (typeof delta.content === 'string') message.content = (message.content ?? '') + delta.content;
    for (const call of delta.tool_calls ?? []) {
      const target = (message.tool_calls[call.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (call.id !== undefined) target.id = call.id;
      target.function.name += call.function?.name ?? '';
      target.function.arguments += call.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) finish = choice.finish_reason;
  }
  return { message: message as unknown as ChatCompletionMessage, finish };
}

const ANTHROPIC_TOOLS = [
  { name: 'read_step', description: 'Read the note of one step.', input_schema: STEP_TOOL.function.parameters as Anthropic.Tool['input_schema'] },
];

describe('Anthropic Messages (@anthropic-ai/sdk) in token-faithful mode', () => {
  for (const [stream, streamInterval] of [
    [false, 1],
    [true, 1],
    [true, 4],
  ] as const) {
    it(`answers thinking, tool_use and text blocks (${stream ? 'messages.stream' : 'messages.create'}${streamInterval > 1 ? `, ${streamInterval} tokens per backend chunk` : ''}) and records the simulator's ids`, async () => {
      setup = await startTokenFaithful(SCRIPT, { gateway: { model: MODEL }, sim: { streamInterval } });
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const messages: MessageParam[] = [{ role: 'user', content: 'Read two notes.' }];
      const answers: Message[] = [];
      for (let turn = 0; turn < 3; turn++) {
        const params = {
          model: 'claude-test',
          max_tokens: 2000,
          system: 'Read notes.',
          messages,
          tools: ANTHROPIC_TOOLS,
          thinking: { type: 'enabled' as const, budget_tokens: 1024 },
        };
        const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
        answers.push(message);
        messages.push({ role: 'assistant', content: message.content as MessageParam['content'] });
        const uses = message.content.filter((block) => block.type === 'tool_use');
        if (uses.length > 0)
          messages.push({ role: 'user', content: uses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: 'noted' })) });
      }
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
      expect(answers[0]!.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
      expect(answers[0]!.content[0]).toMatchObject({ thinking: REASONING(1) });
      expect(answers[1]!.content[1]).toMatchObject({ type: 'tool_use', name: 'read_step', input: { step: 2, label: 'note 2' } });
      expect(answers[2]!.content.map((block) => block.type)).toEqual(['thinking', 'text']);
      expect(answers[2]!.content[1]).toMatchObject({ text: expect.stringContaining(ANSWER) });
      expect(answers[0]!.usage.input_tokens).toBe(setup.sim.log[0]!.promptTokenIds.length);
      const calls = expectFaithfulSession('anthropic', 'anthropic-messages');
      expect(calls.map((call) => call.requestedModel)).toEqual(['claude-test', 'claude-test', 'claude-test']);
    });
  }
});

describe('Responses (openai client) in token-faithful mode', () => {
  for (const stream of [false, true]) {
    it(`answers reasoning, function_call and message items (${stream ? 'streamed' : 'not streamed'}) and records the simulator's ids`, async () => {
      setup = await startTokenFaithful(SCRIPT);
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'unused', maxRetries: 0 });
      const tools = [STEP_RESPONSES_TOOL];
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Read two notes.' }];
      const answers: OpenAI.Responses.Response[] = [];
      for (let turn = 0; turn < 3; turn++) {
        const response = stream
          ? await client.responses.stream({ model: MODEL, input, tools }).finalResponse()
          : await client.responses.create({ model: MODEL, input, tools });
        answers.push(response);
        input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
        for (const item of response.output)
          if (item.type === 'function_call') input.push({ type: 'function_call_output', call_id: item.call_id, output: 'noted' });
      }
      expect(answers[0]!.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
      expect(answers[0]!.output[1]).toMatchObject({ name: 'read_step', arguments: '{"step": 1, "label": "note 1"}' });
      expect(answers[2]!.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
      const text = answers[2]!.output
        .flatMap((item) => (item.type === 'message' ? item.content : []))
        .map((part) => (part.type === 'output_text' ? part.text : ''))
        .join('');
      expect(text).toContain(ANSWER);
      expectFaithfulSession('responses', 'openai-responses');
    });
  }
});
