import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { mistralModelFolder } from './mistral-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { chatToolLoop, functionCalls, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'mistralai/Mistral-7B-Instruct-v0.3';
// what the simulated model means to say: two parallel calls after a sentence (in the one [TOOL_CALLS] list), one of
// which fails, then one more call, then an answer
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
  folder = mistralModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking Mistral (picked from the folder's template) behind a token-faithful gateway of family auto. */
async function start(): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(REPLIES), tokenizerDir: folder.dir, modelName: MODEL },
    { tokenFaithful: '*', modelDir: folder.dir },
  );
}

describe('a Mistral token-faithful session (family mistral, detected from a tokenizer folder built for the test)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'mistral', reasoningParser: 'none', toolCallParser: 'mistral' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): parallel tool calls, a tool error, an answer; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, {
        question: 'What do src/a.ts, src/missing.ts and src/b.ts export?',
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
      // Mistral's ids: nine letters and digits, as vLLM makes them (the template takes only such ids back)
      for (const answer of answers) for (const call of answer.tool_calls ?? []) expect(call.id).toMatch(/^[A-Za-z0-9]{9}$/);
      expect(answers.map((answer) => answer.content ?? null)).toEqual(['Reading both.', null, REPLIES[2]!.content]);

      const stored = setup.gateway.store.listCalls('chat');
      expect(stored).toHaveLength(3);
      expect(stored.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
      expectPromptChain(stored);
      // each turn ended with </s> (128001 in the test tokenizer), kept in the completion ids
      expect(stored.map((call) => call.completionTokenIds?.at(-1))).toEqual([128001, 128001, 128001]);
      const samples = reconstructSession(setup.gateway.store, 'chat', { strategy: 'merge' });
      expect(samples.map((sample) => verifySample(sample, stored))).toEqual([{ ok: true }]);
    });
  }
});
