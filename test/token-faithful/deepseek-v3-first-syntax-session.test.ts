import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { deepSeekV3FirstSyntaxModelFolder } from './deepseek-v3-first-syntax-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, chatToolLoop, functionCalls, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'deepseek-ai/DeepSeek-V3-0324';
// what the simulated model means to say, in the first V3 syntax (the folder's template has no thinking): two parallel
// calls after a sentence, one of which fails, then one more call, then an answer
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
const CALLS = [
  { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
  { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
];
// vLLM's deepseek_v3 stream sends the "\n" the model writes between two calls as content (outside a call, text is
// content: deepseekv3_tool_parser.py, extract_tool_calls_streaming; traced by hand, no vLLM was run here); Chat
// Completions passes it on, Responses and Anthropic Messages drop whitespace-only text after tool calls
const STREAMED_CONTENT = `${REPLIES[0]!.content}\n`;

let folder: ReturnType<typeof deepSeekV3FirstSyntaxModelFolder>;
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = deepSeekV3FirstSyntaxModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking the first V3 syntax (picked from the folder's template) behind a token-faithful gateway of family auto. */
async function start(): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(REPLIES), tokenizerDir: folder.dir, modelName: MODEL },
    { tokenFaithful: '*', modelDir: folder.dir },
  );
}

/**
 * One chain and one sample: each prompt is the previous prompt + the sampled completion (its <｜end▁of▁sentence｜>
 * kept) + the template's rendering of the tool results, as the simulator received it. The template writes an earlier
 * tool-call turn back as its content alone (vLLM hands it "" for the turn's content, so its tool-call branch never
 * runs), and the results of a later turn without <｜tool▁outputs▁begin｜> (its is_output_first is never reset): both
 * are the template's, traced by hand from it.
 */
async function expectOneSample(session: string, toolErrorText: string): Promise<void> {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  expect(setup!.sim.log.map((record) => record.promptTokenIds)).toEqual(calls.map((call) => [...call.promptTokenIds!]));
  // each turn ended with DeepSeek's <｜end▁of▁sentence｜> (1), kept in the completion ids
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([1, 1, 1]);
  const tokenizer = await loadHfTokenizer(folder.dir);
  const text = (ids: ArrayLike<number> | null | undefined): string => tokenizer.decode(Array.from(ids!));
  const question = 'What does src/a.ts export, and src/missing.ts?';
  expect(text(calls[0]!.promptTokenIds)).toBe(`<｜begin▁of▁sentence｜><｜User｜>${question}<｜Assistant｜>`);
  const call = (args: string): string => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
  expect(text(calls[0]!.completionTokenIds)).toBe(
    `Reading both.<｜tool▁calls▁begin｜>${call(CALLS[0]!.arguments)}\n${call(CALLS[1]!.arguments)}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`,
  );
  const after = (index: number): string =>
    text(calls[index + 1]!.promptTokenIds!.slice(calls[index]!.promptTokenIds!.length + calls[index]!.completionTokenIds!.length));
  expect(after(0)).toBe(
    `<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>${TOOL_RESULTS[0]![0]}<｜tool▁output▁end｜>\n<｜tool▁output▁begin｜>${toolErrorText}<｜tool▁output▁end｜><｜tool▁outputs▁end｜>`,
  );
  expect(text(calls[1]!.completionTokenIds)).toBe(`<｜tool▁calls▁begin｜>${call('{"path": "src/b.ts"}')}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`);
  expect(after(1)).toBe(`\n<｜tool▁output▁begin｜>${TOOL_RESULTS[1]![0]}<｜tool▁output▁end｜><｜tool▁outputs▁end｜>`);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

describe("a DeepSeek-V3 token-faithful session in the first V3 syntax (the package's own template, family detected)", () => {
  it('shows the family and its deepseek-v3 tool parser on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'deepseek-v3', reasoningParser: 'deepseek-v3', toolCallParser: 'deepseek-v3' });
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
      expect(answers.map(functionCalls)).toEqual([CALLS, [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }], null]);
      const first = stream ? STREAMED_CONTENT : REPLIES[0]!.content;
      expect(answers.map((answer) => answer.content ?? null)).toEqual([first, null, REPLIES[2]!.content]);
      await expectOneSample('chat', TOOL_RESULTS[0]![1]!);
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
      // the front door writes an is_error result back as "Error: " + its text (anthropic-chat-messages.ts)
      await expectOneSample('anthropic', `Error: ${TOOL_RESULTS[0]![1]!}`);
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
        { calls: CALLS, text: REPLIES[0]!.content },
        { calls: [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }], text: null },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      await expectOneSample('responses', TOOL_RESULTS[0]![1]!);
    });
  }
});
