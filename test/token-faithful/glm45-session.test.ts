import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { GLM_NAMES, glm45ModelFolder } from './glm45-model-folder.js';
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

const MODEL = 'zai-org/GLM-4.6';
// what the simulated model means to say: it thinks, then two parallel calls after a sentence, one of which fails; one
// more call; an answer; then, asked again, a call and an answer
const REPLIES: SimReply[] = [
  {
    reasoning: 'Two files first.',
    content: 'Reading both.',
    toolCalls: [
      { name: 'read_file', arguments: { path: 'src/a.ts' } },
      { name: 'read_file', arguments: { path: 'src/missing.ts' } },
    ],
  },
  { reasoning: 'Now b.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { reasoning: 'All read.', content: 'a.ts exports a(), b.ts exports b; missing.ts does not exist.' },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/c.ts' } }] },
  { content: 'c.ts exports c.' },
];
// each turn's results, in call order; the second of the first turn is the tool error
const TOOL_RESULTS = [['export function a() {}', 'Error: ENOENT: no such file or directory'], ['export const b = 1;'], [], ['export const c = 2;']];
const QUESTION = 'What do src/a.ts, src/missing.ts and src/b.ts export?';
const FOLLOW_UP = 'And src/c.ts?';
const RESULT: ToolResult = (turn, index) => ({ content: TOOL_RESULTS[turn]![index]!, isError: turn === 0 && index === 1 });
const TURNS = { question: QUESTION, turns: 5, result: RESULT, followUps: [FOLLOW_UP] };

const idOf = (name: string): number => GLM_NAMES.find((entry) => entry[1] === name)![0];
// GLM stops at the role token of what comes next: <|observation|> after calls, <|user|> after an answer
const OBSERVATION = idOf('<|observation|>');
const USER = idOf('<|user|>');

let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = glm45ModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/**
 * The simulator speaking GLM (picked from the folder's template) behind a token-faithful gateway of family auto,
 * rendering with the folder; `render: 'backend'`: with the simulator's /tokenize (no --model-dir, family named).
 */
async function start(render: 'folder' | 'backend' = 'folder', replies = REPLIES): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(replies), tokenizerDir: folder.dir, modelName: MODEL },
    render === 'folder' ? { tokenFaithful: '*', modelDir: folder.dir } : { tokenFaithful: '*', modelFamily: 'glm45' },
  );
}

/**
 * The session's five calls extend one another and export as one sample the verifier accepts; each turn ended with the
 * role token GLM stops at, kept in its completion ids, and the prompts are what the simulator generated from.
 */
async function expectOneSample(session: string): Promise<void> {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(5);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend', 'extend', 'extend']);
  expectPromptChain(calls);
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([OBSERVATION, OBSERVATION, USER, OBSERVATION, USER]);
  // vLLM names them in stop_reason (stop token ids from generation_config; the tokenizer's EOS is <|endoftext|>)
  expect(calls.map((call) => call.stopReason)).toEqual([OBSERVATION, OBSERVATION, USER, OBSERVATION, USER]);
  expect(setup!.sim.log.map((record) => record.promptTokenIds)).toEqual(calls.map((call) => [...call.promptTokenIds!]));
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
  // the last prompt: the first turns as sampled (their reasoning kept, though the template drops it after a new user
  // message), the tool results as one <|observation|> block, the follow-up after the sampled <|user|>
  const tokenizer = await loadHfTokenizer(folder.dir);
  const last = tokenizer.decode([...calls[4]!.promptTokenIds!], { skipSpecialTokens: false });
  expect(last.startsWith('[gMASK]<sop><|system|>\n# Tools')).toBe(true);
  expect(last).toContain(
    '<|user|>\nWhat do src/a.ts, src/missing.ts and src/b.ts export?<|assistant|><think>Two files first.</think>Reading both.' +
      '<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/a.ts</arg_value>\n</tool_call>' +
      '<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/missing.ts</arg_value>\n</tool_call><|observation|>' +
      '\n<tool_response>\nexport function a() {}\n</tool_response>\n<tool_response>\n',
  );
  // (Anthropic's is_error result comes with the gateway's "Error: " before its text)
  expect(last).toContain('Error: ENOENT: no such file or directory\n</tool_response><|assistant|><think>Now b.</think>');
  expect(last).toContain('does not exist.<|user|>\nAnd src/c.ts?<|assistant|>');
  expect(last.endsWith('\n<tool_response>\nexport const c = 2;\n</tool_response><|assistant|>')).toBe(true);
}

describe('a GLM-4.6 token-faithful session (family glm45, detected from a model folder built for the test)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'glm45', reasoningParser: 'glm45', toolCallParser: 'glm45' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): reasoning, parallel tool calls, a tool error, answers, a second question; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, { ...TURNS, stream });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop', 'tool_calls', 'stop']);
      expect(answers.map(functionCalls)).toEqual([
        [
          { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
          { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
        ],
        [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }],
        null,
        [{ name: 'read_file', arguments: '{"path": "src/c.ts"}' }],
        null,
      ]);
      expect(answers.map((answer) => answer.content ?? null)).toEqual(REPLIES.map((reply) => reply.content ?? null));
      // streamed, the client's accumulated message keeps only the last `reasoning` delta (Anthropic's thinking blocks
      // check the streamed reasoning below)
      if (!stream) {
        const reasoning = answers.map((answer) => (answer as { reasoning?: string | null }).reasoning ?? null);
        expect(reasoning).toEqual(REPLIES.map((reply) => reply.reasoning ?? null));
      }
      await expectOneSample('chat');
      // the model wrote its own syntax
      expect(setup.sim.log[0]!.text).toContain('<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/a.ts</arg_value>\n</tool_call>');
    });

    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): thinking, parallel tool_use, an is_error result, text, a second question; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const answers = await anthropicToolLoop(client, { ...TURNS, stream });
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn', 'tool_use', 'end_turn']);
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
      expect(answers[3]!.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/c.ts' } })]);
      expect(answers[4]!.content).toEqual([expect.objectContaining({ type: 'text', text: REPLIES[4]!.content })]);
      await expectOneSample('anthropic');
    });

    it(`Responses (${stream ? 'streamed' : 'not streamed'}): parallel function calls, a tool error, messages, a second question; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'x', maxRetries: 0 });
      const responses = await responsesToolLoop(client, MODEL, { ...TURNS, stream });
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
        { calls: [{ name: 'read_file', arguments: '{"path": "src/c.ts"}' }], text: null },
        { calls: null, text: REPLIES[4]!.content },
      ]);
      await expectOneSample('responses');
    });
  }

  it('enable_thinking: false: the prompt closes the think block, the model does not think, and the turns still extend', async () => {
    setup = await start('folder', REPLIES.slice(0, 3));
    const client = new OpenAI({ baseURL: setup.openaiBase('no-thinking'), apiKey: 'x', maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
    const said: Array<{ reasoning: unknown; content: string | null }> = [];
    for (let turn = 0; turn < 3; turn++) {
      const params = { model: MODEL, messages, tools: [READ_FILE_TOOL], chat_template_kwargs: { enable_thinking: false } };
      const message = (await client.chat.completions.create(params)).choices[0]!.message;
      said.push({ reasoning: (message as { reasoning?: unknown }).reasoning ?? null, content: message.content });
      messages.push(message as ChatCompletionMessageParam);
      for (const [index, call] of (message.tool_calls ?? []).entries()) {
        messages.push({ role: 'tool', tool_call_id: call.id, content: RESULT(turn, index).content });
      }
    }
    expect(said).toEqual(REPLIES.slice(0, 3).map((reply) => ({ reasoning: null, content: reply.content ?? null })));
    const calls = setup.gateway.store.listCalls('no-thinking');
    expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
    expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([OBSERVATION, OBSERVATION, USER]);
    const samples = reconstructSession(setup.gateway.store, 'no-thinking', { strategy: 'merge' });
    expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
    // the template's thinking-off prompt: /nothink after the question, an empty think block after <|assistant|>
    const tokenizer = await loadHfTokenizer(folder.dir);
    const first = tokenizer.decode([...calls[0]!.promptTokenIds!]);
    expect(first.endsWith(`<|user|>\n${QUESTION}/nothink<|assistant|>\n<think></think>`)).toBe(true);
    expect(setup.sim.log[0]!.text.startsWith('Reading both.<tool_call>')).toBe(true);
  });

  it("the backend's /tokenize renders (no --model-dir, family named), streamed: one sample", async () => {
    setup = await start('backend');
    const client = new OpenAI({ baseURL: setup.openaiBase('backend'), apiKey: 'x', maxRetries: 0 });
    const { finishes } = await chatToolLoop(client, MODEL, { ...TURNS, stream: true });
    expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop', 'tool_calls', 'stop']);
    await expectOneSample('backend');
  });
});
