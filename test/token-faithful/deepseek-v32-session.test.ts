import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer, type HfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { deepSeekV32ModelFolder } from './deepseek-v32-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import {
  anthropicToolLoop,
  chatToolLoop,
  functionCalls,
  READ_FILE_TOOL,
  responsesToolLoop,
  responseSaid,
  type ToolResult,
} from './tool-loop-drivers.js';

const MODEL = 'deepseek-ai/DeepSeek-V3.2';
// what the simulated model means to say (thinking off, vLLM's default for V3.2): two parallel calls after a sentence,
// one of which fails, then one more call, then an answer. The simulator writes them in DSML with its own writer
// (sim/render-deepseek-v32-reply.ts); the gateway renders the prompts with the family's renderer (no template)
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
// vLLM's deepseek_v32 parser keeps the text before <｜DSML｜function_calls> as the content, its "\n\n" too (the model
// writes "\n\n" before its calls, as the encoder writes an assistant turn back): a turn of calls alone has content
// "\n\n" on Chat Completions (the Anthropic and Responses front doors send no whitespace-only text)
const FIRST_CONTENT = `${REPLIES[0]!.content}\n\n`;
const MEANT_CALLS = [
  [
    { name: 'read_file', arguments: { path: 'src/a.ts' } },
    { name: 'read_file', arguments: { path: 'src/missing.ts' } },
  ],
  [{ name: 'read_file', arguments: { path: 'src/b.ts' } }],
  null,
];
const TOOL_RESULTS = [['export function a() {}', 'Error: ENOENT: no such file or directory'], ['export const b = 1;']];
const RESULT: ToolResult = (turn, index) => ({ content: TOOL_RESULTS[turn]![index]!, isError: turn === 0 && index === 1 });
const QUESTION = 'What does src/a.ts export, and src/missing.ts?';

let folder: { dir: string; remove: () => void };
let tokenizer: HfTokenizer;
let setup: GatewayWithSim | undefined;
beforeAll(async () => {
  folder = deepSeekV32ModelFolder();
  tokenizer = await loadHfTokenizer(folder.dir);
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking DSML (picked from the folder's config.json) behind a token-faithful gateway of family auto. */
async function start(replies: SimReply[] = REPLIES): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(replies), tokenizerDir: folder.dir, modelName: MODEL },
    { tokenFaithful: '*', modelDir: folder.dir },
  );
}

/** Arguments read as JSON: whole answers print them spaced, streamed ones compact (as vLLM's deepseek_v32 parser does). */
function parsedCalls(calls: unknown): unknown {
  if (!Array.isArray(calls)) return calls;
  return calls.map((call: { name: string; arguments: string }) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown }));
}

function expectOneSample(session: string): void {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  // the family's renderer wrote the first prompt: BOS, the tools' own system message, the user turn with thinking off
  const prompt = tokenizer.decode([...calls[0]!.promptTokenIds!]);
  expect(prompt.startsWith('<｜begin▁of▁sentence｜>\n\n## Tools\nYou have access to a set of tools')).toBe(true);
  expect(prompt).toContain('\n<functions>\n{"name": "read_file", "description": "Read a file.", "parameters": {"type": "object"');
  expect(prompt.endsWith(`</functions>\n<｜User｜>${QUESTION}<｜Assistant｜></think>`)).toBe(true);
  // its markers are the vocabulary's special tokens: <｜begin▁of▁sentence｜> 0, <｜Assistant｜> 128804, </think> 128799
  const ids = [...calls[0]!.promptTokenIds!];
  expect([ids[0], ...ids.slice(-2)]).toEqual([0, 128804, 128799]);
  // the simulator wrote DSML, and the next prompt carries the results in one <function_results> block after it
  expect(tokenizer.decode([...calls[0]!.completionTokenIds!])).toContain('\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="read_file">\n');
  expect(tokenizer.decode([...calls[1]!.promptTokenIds!])).toContain(
    `<｜end▁of▁sentence｜>\n\n<function_results>\n<result>${TOOL_RESULTS[0]![0]}</result>\n<result>`,
  );
  // each turn ended with DeepSeek's <｜end▁of▁sentence｜> (1), kept in the completion ids
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([1, 1, 1]);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

describe('a DeepSeek V3.2 token-faithful session (no template: the family renders DSML prompts itself)', () => {
  it("starts on a V3.2 folder without a template and shows the family's renderer on /healthz", async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({
      name: 'deepseek-v3',
      reasoningParser: 'deepseek-v3',
      toolCallParser: 'deepseek-v32',
      renderer: 'deepseek-v32-encoding',
    });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): parallel DSML calls, a tool error, an answer; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map((answer) => parsedCalls(functionCalls(answer)))).toEqual(MEANT_CALLS);
      expect(answers.map((answer) => answer.content ?? null)).toEqual([FIRST_CONTENT, '\n\n', REPLIES[2]!.content]);
      expectOneSample('chat');
    });
  }

  for (const stream of [false, true]) {
    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): parallel tool_use, an is_error result, text; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const answers = await anthropicToolLoop(client, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
      expect(answers[0]!.content).toEqual([
        expect.objectContaining({ type: 'text', text: FIRST_CONTENT }),
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
      const responses = await responsesToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(responses.map((response) => ({ ...responseSaid(response), calls: parsedCalls(responseSaid(response).calls) }))).toEqual([
        { calls: MEANT_CALLS[0], text: FIRST_CONTENT },
        { calls: MEANT_CALLS[1], text: null },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      expectOneSample('responses');
    });
  }

  for (const stream of [false, true]) {
    it(`thinking on (chat_template_kwargs.thinking), Chat Completions (${stream ? 'streamed' : 'not streamed'}): two questions; reasoning dropped by the encoder stays in the sample`, async () => {
      setup = await start(THINKING_REPLIES);
      const { answers, reasonings } = await thinkingChat(stream);
      expect(answers.map((answer) => parsedCalls(functionCalls(answer)))).toEqual([
        [{ name: 'read_file', arguments: { path: 'src/a.ts' } }],
        null,
        [{ name: 'read_file', arguments: { path: 'src/b.ts' } }],
        null,
      ]);
      expect(reasonings).toEqual(THINKING_REPLIES.map((reply) => reply.reasoning));
      expect(answers.map((answer) => answer.content ?? null)).toEqual(['\n\n', THINKING_REPLIES[1]!.content, '\n\n', THINKING_REPLIES[3]!.content]);
      const calls = setup.gateway.store.listCalls('thinking');
      expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend', 'extend']);
      expectPromptChain(calls);
      const prompts = calls.map((call) => tokenizer.decode([...call.promptTokenIds!]));
      // the encoder opens the turn with <think> after the last user turn and after the last tool results
      expect(prompts[0]!.endsWith(`<｜User｜>${QUESTION}<｜Assistant｜><think>`)).toBe(true);
      expect(prompts[1]!.endsWith(`\n</function_results>\n\n<think>`)).toBe(true);
      // after the second question the encoder would drop the first question's reasoning (and close its turn with
      // </think>): the prompt extends the sampled ids instead, so the model's first reasoning is still there
      expect(prompts[2]!).toContain(`<｜Assistant｜><think>${THINKING_REPLIES[0]!.reasoning}</think>`);
      expect(prompts[2]!.endsWith(`<｜User｜>${SECOND_QUESTION}<｜Assistant｜><think>`)).toBe(true);
      const samples = reconstructSession(setup.gateway.store, 'thinking', { strategy: 'merge' });
      expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
    });
  }

  it('thinking on, a harness that sends no reasoning back: the turn after an answer still extends (vLLM renders that conversation)', async () => {
    setup = await start(THINKING_REPLIES);
    await thinkingChat(false, { sendReasoningBack: false });
    const calls = setup.gateway.store.listCalls('thinking');
    expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend', 'extend']);
    const samples = reconstructSession(setup.gateway.store, 'thinking', { strategy: 'merge' });
    expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
  });
});

// thinking on: a call, an answer; a second question: a call answered with an error, an answer
const THINKING_REPLIES: SimReply[] = [
  { reasoning: 'Read a.ts first.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
  { reasoning: 'It exports a.', content: 'a.ts exports a().' },
  { reasoning: 'Now b.ts.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { reasoning: 'It is missing.', content: 'src/b.ts does not exist.' },
];
const SECOND_QUESTION = 'And src/b.ts?';
const THINKING_RESULTS = ['export function a() {}', 'Error: ENOENT: no such file or directory'];

/**
 * The thinking session through Chat Completions with the real openai client and `chat_template_kwargs.thinking`; each
 * answer goes back with its reasoning, which DeepSeek's encoder needs for a turn after the last user turn (the SDK's
 * stream accumulator keeps only the last delta of a field it does not know, so streamed reasoning is summed here).
 */
async function thinkingChat(
  stream: boolean,
  options: { sendReasoningBack: boolean } = { sendReasoningBack: true },
): Promise<{ answers: OpenAI.Chat.Completions.ChatCompletionMessage[]; reasonings: string[] }> {
  const client = new OpenAI({ baseURL: setup!.openaiBase('thinking'), apiKey: 'x', maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
  const answers: OpenAI.Chat.Completions.ChatCompletionMessage[] = [];
  const reasonings: string[] = [];
  for (let turn = 0; turn < THINKING_REPLIES.length; turn++) {
    const params = { model: MODEL, messages, tools: [READ_FILE_TOOL], chat_template_kwargs: { thinking: true } };
    let streamedReasoning = '';
    const runner = stream ? client.chat.completions.stream({ ...params, stream: true }) : null;
    runner?.on('chunk', (chunk) => (streamedReasoning += (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? ''));
    const choice = runner !== null ? (await runner.finalChatCompletion()).choices[0]! : (await client.chat.completions.create(params)).choices[0]!;
    const reasoning = stream ? streamedReasoning : ((choice.message as { reasoning?: string }).reasoning ?? '');
    reasonings.push(reasoning);
    answers.push(choice.message);
    const { reasoning: _dropped, ...withoutReasoning } = choice.message as { reasoning?: string };
    messages.push((options.sendReasoningBack ? { ...choice.message, reasoning } : withoutReasoning) as ChatCompletionMessageParam);
    for (const call of choice.message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: THINKING_RESULTS[turn >> 1]! });
    if (turn === 1) messages.push({ role: 'user', content: SECOND_QUESTION });
  }
  return { answers, reasonings };
}
