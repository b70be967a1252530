import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { qwen35ModelFolder } from './qwen35-model-folder.js';
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

const MODEL = 'Qwen/Qwen3.5-0.8B';
// what the simulated model means to say: two parallel calls after a sentence, one of which fails, then one more call,
// then an answer (the reasoning is written only where the prompt opened the think block)
const REPLIES: SimReply[] = [
  {
    reasoning: 'Both files, at once.',
    content: 'Reading both.',
    toolCalls: [
      { name: 'read_file', arguments: { path: 'src/a.ts' } },
      { name: 'read_file', arguments: { path: 'src/missing.ts' } },
    ],
  },
  { reasoning: 'Now b.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { reasoning: 'Done.', content: 'a.ts exports a(), b.ts exports b; missing.ts does not exist.' },
];
const TOOL_RESULTS = [['export function a() {}', 'Error: ENOENT: no such file or directory'], ['export const b = 1;']];
const RESULT: ToolResult = (turn, index) => ({ content: TOOL_RESULTS[turn]![index]!, isError: turn === 0 && index === 1 });
const QUESTION = 'What does src/a.ts export, and src/missing.ts?';
const CALLS = [
  [
    { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
    { name: 'read_file', arguments: '{"path": "src/missing.ts"}' },
  ],
  [{ name: 'read_file', arguments: '{"path": "src/b.ts"}' }],
  null,
];

let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = qwen35ModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking Qwen3.5 (picked from the folder's template) behind a token-faithful gateway of family auto. */
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
  // each turn ended with <|im_end|> (151645), kept in the completion ids
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([151645, 151645, 151645]);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

/** Content as the model wrote it: the qwen3-coder parser keeps the "\n\n" before the first call. */
const trimmed = (text: string | null | undefined): string | null => (text === null || text === undefined ? null : text.trim() || null);

describe('a Qwen3.5 token-faithful session (family qwen3.5, detected from the model folder; Qwen3 tokenizer, Qwen3.5 template)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'qwen3.5', reasoningParser: 'qwen3', toolCallParser: 'qwen3-coder' });
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}), thinking off (the template's default): one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const { answers, finishes } = await chatToolLoop(client, MODEL, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      expect(answers.map(functionCalls)).toEqual(CALLS);
      expect(answers.map((answer) => trimmed(answer.content))).toEqual([REPLIES[0]!.content, null, REPLIES[2]!.content]);
      // thinking off: the prompt closed the think block, nothing is read as reasoning
      expect(answers.map((answer) => (answer as { reasoning?: unknown }).reasoning ?? null)).toEqual([null, null, null]);
      expectOneSample('chat');
    });
  }

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}), enable_thinking: the reasoning before </think>; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
      const said: Array<{ reasoning: unknown; content: string | null; calls: unknown }> = [];
      for (let turn = 0; turn < 3; turn++) {
        const params = { model: MODEL, messages, tools: [READ_FILE_TOOL], chat_template_kwargs: { enable_thinking: true } };
        let streamedReasoning = '';
        const message = stream
          ? (
              await client.chat.completions
                .stream({ ...params, stream: true })
                // the client's accumulated message keeps only the last `reasoning` delta: join them here
                .on('chunk', (chunk) => (streamedReasoning += (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? ''))
                .finalChatCompletion()
            ).choices[0]!.message
          : (await client.chat.completions.create(params)).choices[0]!.message;
        const reasoning = stream ? streamedReasoning : (message as { reasoning?: unknown }).reasoning;
        said.push({ reasoning, content: trimmed(message.content), calls: functionCalls(message) });
        messages.push(message as ChatCompletionMessageParam);
        for (const [index, call] of (message.tool_calls ?? []).entries()) {
          messages.push({ role: 'tool', tool_call_id: call.id, content: RESULT(turn, index).content });
        }
      }
      // the sim writes `{reasoning}\n</think>\n\n`: the reasoning keeps its "\n"
      expect(said).toEqual(REPLIES.map((reply, turn) => ({ reasoning: `${reply.reasoning}\n`, content: reply.content ?? null, calls: CALLS[turn] })));
      expectOneSample('chat');
    });
  }

  for (const stream of [false, true]) {
    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): parallel tool_use, an is_error result, text; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const answers = await anthropicToolLoop(client, { question: QUESTION, turns: 3, stream, result: RESULT });
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
      expect(answers[0]!.content.map((block) => (block.type === 'text' ? block.text.trim() : block.type === 'tool_use' && block.input))).toEqual([
        REPLIES[0]!.content,
        { path: 'src/a.ts' },
        { path: 'src/missing.ts' },
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
      expect(responses.map(responseSaid).map(({ calls, text }) => ({ calls, text: trimmed(text) }))).toEqual([
        { calls: CALLS[0], text: REPLIES[0]!.content },
        { calls: CALLS[1], text: null },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      expectOneSample('responses');
    });
  }
});
