import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { deepSeekV3ModelFolder } from './deepseek-v3-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';

const MODEL = 'deepseek-ai/DeepSeek-V3.1';
const TOOL = {
  type: 'function' as const,
  function: {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};
// what the simulated model means to say (thinking off, the template's default): two parallel calls after a sentence,
// one of which fails, then one more call, then an answer
const REPLIES: SimReply[] = [
  {
    content: 'Reading both.',
    toolCalls: [
      { name: 'read_file', arguments: { path: 'src/a.ts' } },
      { name: 'read_file', arguments: { path: 'src/missing.ts' } },
    ],
  },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { content: 'a.ts exports a(), b.ts exports b; missing.ts does not exist.' },
];
// each turn's results, in call order; the second of the first turn is the tool error
const TOOL_RESULTS = [['export function a() {}', 'Error: ENOENT: no such file or directory'], ['export const b = 1;']];

let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = deepSeekV3ModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking DeepSeek V3.1 (picked from the folder's template) behind a token-faithful gateway of family auto. */
async function start(): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(REPLIES), tokenizerDir: folder.dir, modelName: MODEL },
    { tokenFaithful: '*', modelDir: folder.dir },
  );
}

function expectOneSample(session: string): void {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  // each turn ended with DeepSeek's <｜end▁of▁sentence｜> (1), kept in the completion ids
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([1, 1, 1]);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

describe('a DeepSeek V3.1 token-faithful session (family deepseek-v3, detected from the model folder)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'deepseek-v3', reasoningParser: 'deepseek-v3', toolCallParser: 'deepseek-v31' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): parallel tool calls, a tool error, an answer; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What does src/a.ts export, and src/missing.ts?' }];
      const answers: OpenAI.Chat.Completions.ChatCompletionMessage[] = [];
      const finishes: string[] = [];
      for (let turn = 0; turn < 3; turn++) {
        const params = { model: MODEL, messages, tools: [TOOL] };
        const choice = stream
          ? (await client.chat.completions.stream({ ...params, stream: true }).finalChatCompletion()).choices[0]!
          : (await client.chat.completions.create(params)).choices[0]!;
        answers.push(choice.message);
        finishes.push(choice.finish_reason);
        messages.push(choice.message as ChatCompletionMessageParam);
        for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
          messages.push({ role: 'tool', tool_call_id: call.id, content: TOOL_RESULTS[turn]![index]! });
        }
      }
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      // vLLM's whole answer has tool_calls: [] without calls, a stream none
      const calls = (answer: OpenAI.Chat.Completions.ChatCompletionMessage): unknown =>
        answer.tool_calls === undefined || answer.tool_calls.length === 0
          ? null
          : answer.tool_calls.map((call) => call.type === 'function' && call.function);
      expect(answers.map(calls)).toEqual([
        [
          { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
          { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
        ],
        [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }],
        null,
      ]);
      expect(answers.map((answer) => answer.content ?? null)).toEqual([REPLIES[0]!.content, null, REPLIES[2]!.content]);
      expectOneSample('chat');
    });
  }

  for (const stream of [false, true]) {
    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): parallel tool_use, an is_error result, text; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const messages: MessageParam[] = [{ role: 'user', content: 'What does src/a.ts export, and src/missing.ts?' }];
      const answers: Message[] = [];
      for (let turn = 0; turn < 3; turn++) {
        const params = {
          model: 'claude-test',
          max_tokens: 1000,
          messages,
          tools: [
            {
              name: TOOL.function.name,
              description: TOOL.function.description,
              input_schema: TOOL.function.parameters as Anthropic.Tool['input_schema'],
            },
          ],
        };
        const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
        answers.push(message);
        messages.push({ role: 'assistant', content: message.content as MessageParam['content'] });
        const uses = message.content.filter((block) => block.type === 'tool_use');
        if (uses.length > 0) {
          messages.push({
            role: 'user',
            content: uses.map((block, index) => ({
              type: 'tool_result' as const,
              tool_use_id: block.id,
              content: TOOL_RESULTS[turn]![index]!,
              is_error: turn === 0 && index === 1,
            })),
          });
        }
      }
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
      expect(answers[0]!.content).toEqual([
        expect.objectContaining({ type: 'text', text: REPLIES[0]!.content }),
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/a.ts' } }),
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/missing.ts' } }),
      ]);
      expect(answers[1]!.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/b.ts' } })]);
      expect(answers[2]!.content).toEqual([expect.objectContaining({ type: 'text', text: REPLIES[2]!.content })]);
      expectOneSample('anthropic');
    });
  }
});
