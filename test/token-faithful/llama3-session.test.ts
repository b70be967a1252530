import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { llama3ModelFolder } from './llama3-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, chatToolLoop, functionCalls, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
// what the simulated model means to say: a call per turn (the Llama 3.1 JSON template takes one), then an answer
const REPLIES: SimReply[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/missing.ts' } }] },
  { content: 'a.ts exports one function; missing.ts does not exist.' },
];
const TOOL_RESULTS = ['export function a() {}', 'Error: ENOENT: no such file or directory'];
const RESULT: ToolResult = (turn) => ({ content: TOOL_RESULTS[turn]!, isError: turn === 1 });

let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = llama3ModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/**
 * The simulator speaking Llama 3.1 (picked from the folder's template) behind a token-faithful gateway of family auto,
 * rendering with the folder; `render: 'backend'`: with the simulator's /tokenize (no --model-dir, family named).
 */
async function start(replies = REPLIES, render: 'folder' | 'backend' = 'folder'): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(replies), tokenizerDir: folder.dir, modelName: MODEL },
    render === 'folder' ? { tokenFaithful: '*', modelDir: folder.dir } : { tokenFaithful: '*', modelFamily: 'llama3' },
  );
}

/** Llama's <|eot_id|> and <|eom_id|>, <|python_tag|> (the folder's 128008 and 128010 renamed as in Meta's 3.1 tokenizer) */
const EOT = 128009;
const EOM = 128008;
const PYTHON_TAG = 128010;

function expectOneSample(session: string, endIds = [EOT, EOT, EOT]): void {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  // each turn's end-of-turn id is kept in the completion ids
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual(endIds);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

describe('a Llama 3.1 token-faithful session (family llama3, detected from the model folder)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'llama3', reasoningParser: 'none', toolCallParser: 'llama3-json' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): tool calls, a tool error, an answer; one sample`, async () => {
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
        [{ name: 'read_file', arguments: '{"path": "src/a.ts"}' }],
        [{ name: 'read_file', arguments: '{"path": "src/missing.ts"}' }],
        null,
      ]);
      expect(answers.map((answer) => answer.content ?? null)).toEqual([null, null, REPLIES[2]!.content]);
      expectOneSample('chat');
    });
  }

  for (const stream of [false, true]) {
    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): tool_use, an is_error result, text; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const answers = await anthropicToolLoop(client, {
        question: 'What does src/a.ts export, and src/missing.ts?',
        turns: 3,
        stream,
        result: RESULT,
      });
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
      expect(answers[0]!.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/a.ts' } })]);
      expect(answers[1]!.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/missing.ts' } })]);
      expect(answers[2]!.content).toEqual([expect.objectContaining({ type: 'text', text: REPLIES[2]!.content })]);
      expectOneSample('anthropic');
    });
  }
  for (const stream of [false, true]) {
    it(`Responses (${stream ? 'streamed' : 'not streamed'}): function calls, a tool error, a message; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'x', maxRetries: 0 });
      const responses = await responsesToolLoop(client, MODEL, {
        question: 'What does src/a.ts export, and src/missing.ts?',
        turns: 3,
        stream,
        result: RESULT,
      });
      expect(responses.map(responseSaid)).toEqual([
        { calls: [{ name: 'read_file', arguments: '{"path": "src/a.ts"}' }], text: null },
        { calls: [{ name: 'read_file', arguments: '{"path": "src/missing.ts"}' }], text: null },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      expectOneSample('responses');
    });
  }

  // Llama 3.1 may open a call with <|python_tag|> and end it with <|eom_id|> (Environment: ipython, which the JSON
  // template writes with tools); the template writes the turn back with <|eot_id|>, so the turn is found by counting
  // both and the next call extends the sampled ids, <|eom_id|> kept
  const EOM_REPLIES: SimReply[] = [{ ...REPLIES[0]!, pythonTag: true }, REPLIES[1]!, REPLIES[2]!];
  for (const [render, stream] of [
    ['folder', false],
    ['backend', true],
  ] as const) {
    it(`a tool call ended by <|eom_id|> after <|python_tag|> is extended from its ids (${render === 'folder' ? 'the model folder renders' : "the backend's /tokenize renders"}, ${stream ? 'streamed' : 'not streamed'}); one sample`, async () => {
      setup = await start(EOM_REPLIES, render);
      const client = new OpenAI({ baseURL: setup.openaiBase('eom'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, { question: 'What does src/a.ts export?', turns: 3, stream, result: RESULT });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map(functionCalls)).toEqual([
        [{ name: 'read_file', arguments: '{"path": "src/a.ts"}' }],
        [{ name: 'read_file', arguments: '{"path": "src/missing.ts"}' }],
        null,
      ]);
      expect(answers[2]!.content).toBe(REPLIES[2]!.content);
      const first = setup.gateway.store.listCalls('eom')[0]!;
      expect(first.completionTokenIds?.[0]).toBe(PYTHON_TAG);
      // vLLM names <|eom_id|> in stop_reason (a stop token id from generation_config, not the tokenizer's EOS)
      expect(first.stopReason).toBe(EOM);
      expectOneSample('eom', [EOM, EOT, EOT]);
    });
  }
});
