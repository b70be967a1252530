import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { deepSeekV3ModelFolder } from './deepseek-v3-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, chatToolLoop, functionCalls, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'deepseek-ai/DeepSeek-V3.1';
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
const RESULT: ToolResult = (turn, index) => ({ content: TOOL_RESULTS[turn]![index]!, isError: turn === 0 && index === 1 });

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
      const { answers, finishes } = await chatToolLoop(client, MODEL, {
        question: 'What does src/a.ts export, and src/missing.ts?',
        turns: 3,
        stream,
        result: RESULT,
      });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map(functionCalls)).toEqual([
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
      const answers = await anthropicToolLoop(client, {
        question: 'What does src/a.ts export, and src/missing.ts?',
        turns: 3,
        stream,
        result: RESULT,
      });
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
  for (const stream of [false, true]) {
    it(`Responses (${stream ? 'streamed' : 'not streamed'}): parallel function calls, a tool error, a message; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'x', maxRetries: 0 });
      const responses = await responsesToolLoop(client, MODEL, {
        question: 'What does src/a.ts export, and src/missing.ts?',
        turns: 3,
        stream,
        result: RESULT,
      });
      expect(responses.map(responseSaid)).toEqual([
        {
          calls: [
            { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
            { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
          ],
          text: REPLIES[0]!.content,
        },
        { calls: [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }], text: null },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      expectOneSample('responses');
    });
  }
});
