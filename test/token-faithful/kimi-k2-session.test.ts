import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { KIMI_IM_END, kimiK2ModelFolder } from './kimi-k2-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, chatToolLoop, functionCalls, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'moonshotai/Kimi-K2-Thinking';
// what the simulated model means to say: it thinks, then two parallel calls after a sentence (in one tool-call
// section), one of which fails; thinks again and makes one more call; then answers
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
// Kimi's ids as the model writes them: `functions.NAME:IDX`, IDX counting the calls of the conversation
const KIMI_IDS = ['functions.read_file:0', 'functions.read_file:1', 'functions.read_file:2'];

let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = kimiK2ModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking Kimi K2 (picked from the folder) behind a token-faithful gateway of family auto. */
async function start(replies: SimReply[] = REPLIES, dir = folder.dir): Promise<GatewayWithSim> {
  return startGatewayWithSim({ script: orderedScript(replies), tokenizerDir: dir, modelName: MODEL }, { tokenFaithful: '*', modelDir: dir });
}

/**
 * The session's three calls extend one another, each turn ended by `<|im_end|>` (kept in the completion ids), and
 * export as one sample the verifier accepts; the prompts answer the calls with the ids the model wrote
 * (`## Return of functions.read_file:0`), whatever ids the client was handed.
 */
async function expectOneSample(session: string): Promise<void> {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([KIMI_IM_END, KIMI_IM_END, KIMI_IM_END]);
  // what the backend generated from is what was recorded, call for call
  expect(setup!.sim.log.map((record) => record.promptTokenIds)).toEqual(calls.map((call) => [...call.promptTokenIds!]));
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
  const lastPrompt = (await loadHfTokenizer(folder.dir)).decode([...calls[2]!.promptTokenIds!]);
  expect([...lastPrompt.matchAll(/## Return of (\S*)\n/g)].map((match) => match[1])).toEqual(KIMI_IDS);
  expect(lastPrompt.endsWith('<|im_assistant|>assistant<|im_middle|>')).toBe(true);
}

describe('a Kimi K2 token-faithful session (family kimi-k2, detected from a model folder built for the test, K2-Thinking template)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'kimi-k2', reasoningParser: 'kimi-k2', toolCallParser: 'kimi-k2' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): reasoning, parallel tool calls, a tool error, an answer; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map(functionCalls)).toEqual([
        [
          { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
          { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
        ],
        [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }],
        null,
      ]);
      expect(answers.flatMap((answer) => (answer.tool_calls ?? []).map((call) => call.id))).toEqual(KIMI_IDS);
      expect(answers.map((answer) => answer.content ?? null)).toEqual(['Reading both.', null, REPLIES[2]!.content]);
      // (a streamed answer's accumulated message keeps only the last `reasoning` delta: the Anthropic and Responses
      // tests read the streamed reasoning whole)
      if (!stream) expect(answers.map((answer) => (answer as { reasoning?: string }).reasoning)).toEqual(REPLIES.map((reply) => reply.reasoning));
      await expectOneSample('chat');
      // the model wrote Kimi's syntax
      expect(setup.sim.log[0]!.text).toBe(
        '<think>Two files at once.</think>Reading both.<|tool_calls_section_begin|>' +
          '<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "src/a.ts"}<|tool_call_end|>' +
          '<|tool_call_begin|>functions.read_file:1<|tool_call_argument_begin|>{"path": "src/missing.ts"}<|tool_call_end|>' +
          '<|tool_calls_section_end|>',
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
      // Anthropic's alphabet has no '.' or ':': the ids handed out are toolu_ ones, and come back as Kimi's
      const ids = answers.flatMap((answer) => answer.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])));
      for (const id of ids) expect(id).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
      expect(new Set(ids).size).toBe(3);
      await expectOneSample('anthropic');
    });

    it(`Responses (${stream ? 'streamed' : 'not streamed'}): reasoning, parallel function calls, a tool error, a message; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'x', maxRetries: 0 });
      const responses = await responsesToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
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
      const ids = responses.flatMap((response) => response.output.flatMap((item) => (item.type === 'function_call' ? [item.call_id] : [])));
      expect(ids).toEqual(KIMI_IDS);
      // each turn's reasoning as one reasoning item
      const reasoning = responses.map((response) =>
        response.output.flatMap((item) => (item.type === 'reasoning' ? (item.content ?? []).map((part) => part.text) : [])),
      );
      expect(reasoning).toEqual(REPLIES.map((reply) => [reply.reasoning]));
      await expectOneSample('responses');
    });
  }
});

// K2-Instruct's first template writes an assistant turn as its content only and a result without its call's id: the
// gateway extends each turn from its ids all the same (the calls the model wrote stay in the sample), and the results
// reach the model as the template writes them
const INSTRUCT_REPLIES: SimReply[] = REPLIES.map(({ reasoning: _reasoning, ...reply }) => reply);

describe('a Kimi K2-Instruct token-faithful session (its first template: no reasoning, calls not written back)', () => {
  let instruct: { dir: string; remove: () => void };
  beforeAll(() => {
    instruct = kimiK2ModelFolder({ template: 'instruct' });
  });
  afterAll(() => instruct.remove());

  /** The simulator speaking Kimi K2 (picked from the template's <|im_middle|>) behind a gateway of family auto. */
  async function startInstruct(): Promise<GatewayWithSim> {
    return startGatewayWithSim(
      { script: orderedScript(INSTRUCT_REPLIES), tokenizerDir: instruct.dir, modelName: 'moonshotai/Kimi-K2-Instruct' },
      { tokenFaithful: '*', modelDir: instruct.dir },
    );
  }

  it('shows the family on /healthz, reading no reasoning', async () => {
    setup = await startInstruct();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'kimi-k2', reasoningParser: 'none', toolCallParser: 'kimi-k2' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): parallel tool calls, a tool error, an answer; one sample`, async () => {
      setup = await startInstruct();
      const client = new OpenAI({ baseURL: setup.openaiBase('instruct'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, 'moonshotai/Kimi-K2-Instruct', {
        question: QUESTION,
        turns: 3,
        stream,
        result: RESULT,
      });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.flatMap((answer) => (answer.tool_calls ?? []).map((call) => call.id))).toEqual(KIMI_IDS);
      expect(answers.map((answer) => answer.content ?? null)).toEqual(['Reading both.', null, REPLIES[2]!.content]);
      expect(answers.map((answer) => (answer as { reasoning?: unknown }).reasoning ?? null)).toEqual([null, null, null]);
      const calls = setup.gateway.store.listCalls('instruct');
      expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
      expectPromptChain(calls);
      expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([KIMI_IM_END, KIMI_IM_END, KIMI_IM_END]);
      const samples = reconstructSession(setup.gateway.store, 'instruct', { strategy: 'merge' });
      expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
      // the calls are in the prompt as the model wrote them (its ids); the results follow without them
      const lastPrompt = (await loadHfTokenizer(instruct.dir)).decode([...calls[2]!.promptTokenIds!]);
      expect(lastPrompt.split('<|tool_call_begin|>').length - 1).toBe(3);
      expect(lastPrompt).toContain(`<|im_end|><|im_system|>tool<|im_middle|>${TOOL_RESULTS[0]![0]}<|im_end|>`);
      expect(lastPrompt).not.toContain('## Return of');
    });
  }
});
