import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { mistralModelFolder } from './mistral-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, chatToolLoop, functionCalls, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'mistralai/Magistral-Small-2509';
// what the simulated model means to say: it thinks, then two parallel calls after a sentence (one [TOOL_CALLS] each),
// one of which fails; thinks again and makes one more call; then thinks and answers
const REPLIES: SimReply[] = [
  {
    reasoning: 'Two files at once.',
    content: 'Reading both.',
    toolCalls: [
      { name: 'read_file', arguments: { path: 'src/a.ts' } },
      { name: 'read_file', arguments: { path: 'src/missing.ts' } },
    ],
  },
  { reasoning: 'One missing; b.ts next.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { reasoning: 'All read.', content: 'a.ts exports a(), b.ts exports b; missing.ts does not exist.' },
];
// each turn's results, in call order; the second of the first turn is the tool error
const TOOL_RESULTS = [['export function a() {}', 'Error: ENOENT: no such file or directory'], ['export const b = 1;']];
const QUESTION = 'What do src/a.ts, src/missing.ts and src/b.ts export?';
const RESULT: ToolResult = (turn, index) => ({ content: TOOL_RESULTS[turn]![index]!, isError: turn === 0 && index === 1 });
const MEANT_CALLS = [
  [
    { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
    { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
  ],
  [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }],
];

// the test folder with [THINK] and [/THINK] among its special tokens (and [ARGS]: a v13 tokenizer); no Magistral
// template is used (7B v0.3's still renders, and writes no reasoning back): the turns are extended from their ids
let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = mistralModelFolder({ think: true });
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

/**
 * The session's three calls extend one another, each turn ended by `</s>` (kept in the completion ids), each
 * completion opened by the `[THINK]` special token, and export as one sample the verifier accepts; the prompts the
 * simulator received are the recorded ones, and the last holds the earlier turns' think blocks as they were sampled.
 */
async function expectOneSample(session: string): Promise<void> {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  // 128019 is [THINK] and 128001 </s> in the test tokenizer: special tokens, not text that decodes alike
  expect(calls.map((call) => [call.completionTokenIds?.[0], call.completionTokenIds?.at(-1)])).toEqual([
    [128019, 128001],
    [128019, 128001],
    [128019, 128001],
  ]);
  expect(setup!.sim.log.map((record) => record.promptTokenIds)).toEqual(calls.map((call) => [...call.promptTokenIds!]));
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
  const lastPrompt = (await loadHfTokenizer(folder.dir)).decode([...calls[2]!.promptTokenIds!]);
  expect(lastPrompt).toContain('[THINK]Two files at once.[/THINK]Reading both.[TOOL_CALLS]read_file[ARGS]{"path": "src/a.ts"}');
  expect(lastPrompt).toContain('[THINK]One missing; b.ts next.[/THINK][TOOL_CALLS]read_file[ARGS]{"path": "src/b.ts"}</s>');
}

describe('a Mistral token-faithful session with [THINK] reasoning (a v13 tokenizer built for the test)', () => {
  it('shows the family on /healthz with the mistral reasoning parser and v11 calls', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'mistral', reasoningParser: 'mistral', toolCallParser: 'mistral-v11' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): reasoning, parallel tool calls, a tool error, an answer; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map(functionCalls)).toEqual([...MEANT_CALLS, null]);
      for (const id of answers.flatMap((answer) => (answer.tool_calls ?? []).map((call) => call.id))) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
      expect(answers.map((answer) => answer.content ?? null)).toEqual(['Reading both.', null, REPLIES[2]!.content]);
      // (a streamed answer's accumulated message keeps only the last `reasoning` delta: the Anthropic and Responses
      // tests read the streamed reasoning whole)
      if (!stream) expect(answers.map((answer) => (answer as { reasoning?: string }).reasoning)).toEqual(REPLIES.map((reply) => reply.reasoning));
      await expectOneSample('chat');
      // the model wrote its tokenizer's syntax: the think block, the content, one [TOOL_CALLS] a call
      expect(setup.sim.log[0]!.text).toBe(
        '[THINK]Two files at once.[/THINK]Reading both.[TOOL_CALLS]read_file[ARGS]{"path": "src/a.ts"}' +
          '[TOOL_CALLS]read_file[ARGS]{"path": "src/missing.ts"}',
      );
    });

    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): thinking, parallel tool_use, an is_error result, text; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const answers = await anthropicToolLoop(client, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
      expect(answers[0]!.content).toEqual([
        expect.objectContaining({ type: 'thinking', thinking: REPLIES[0]!.reasoning }),
        expect.objectContaining({ type: 'text', text: REPLIES[0]!.content }),
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/a.ts' } }),
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/missing.ts' } }),
      ]);
      expect(answers[1]!.content).toEqual([
        expect.objectContaining({ type: 'thinking', thinking: REPLIES[1]!.reasoning }),
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/b.ts' } }),
      ]);
      expect(answers[2]!.content).toEqual([
        expect.objectContaining({ type: 'thinking', thinking: REPLIES[2]!.reasoning }),
        expect.objectContaining({ type: 'text', text: REPLIES[2]!.content }),
      ]);
      const ids = answers.flatMap((answer) => answer.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])));
      for (const id of ids) expect(id).toMatch(/^toolu_[A-Za-z0-9]{9}$/);
      await expectOneSample('anthropic');
    });

    it(`Responses (${stream ? 'streamed' : 'not streamed'}): reasoning, parallel function calls, a tool error, a message; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'x', maxRetries: 0 });
      const responses = await responsesToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(responses.map(responseSaid)).toEqual([
        { calls: MEANT_CALLS[0], text: REPLIES[0]!.content },
        { calls: MEANT_CALLS[1], text: null },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      // each turn's reasoning as one reasoning item
      const reasoning = responses.map((response) =>
        response.output.flatMap((item) => (item.type === 'reasoning' ? (item.content ?? []).map((part) => part.text) : [])),
      );
      expect(reasoning).toEqual(REPLIES.map((reply) => [reply.reasoning]));
      await expectOneSample('responses');
    });
  }
});
