import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { createLocalPromptRenderer } from '../../gateway/token-faithful/local-prompt-renderer.js';
import { familyByName } from '../../model-format/families/model-families.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { gptOssModelFolder } from './gpt-oss-model-folder.js';
import { expectPromptChain, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, READ_FILE_TOOL, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'openai/gpt-oss-20b';
// what the simulated model means to say: reasoning, a call per turn (a Harmony completion stops at its first <|call|>),
// then an answer. The expected answers below were traced by hand from vLLM's harmony code (openai_tool_parser.py for
// the whole answer, extract_harmony_streaming_delta for the stream): no vLLM was run here
const REPLIES: SimReply[] = [
  { reasoning: 'Read a.ts first.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
  { reasoning: 'Now missing.ts.', content: 'Checking the second file.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/missing.ts' } }] },
  { reasoning: 'Both read.', content: 'a.ts exports one function; missing.ts does not exist.' },
];
const TOOL_RESULTS = ['export function a() {}', 'Error: ENOENT: no such file or directory'];
const RESULT: ToolResult = (turn) => ({ content: TOOL_RESULTS[turn]!, isError: turn === 1 });

let folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = gptOssModelFolder();
});
afterAll(() => folder.remove());
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking Harmony (picked from the folder's config.json) behind a token-faithful gateway of family auto. */
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
  // <|call|> (200012) ended each tool call and <|return|> (200002) the answer, kept in the completion ids; Harmony writes
  // a tool call back with <|call|>, so the next call extends it
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([200012, 200012, 200002]);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

describe('a gpt-oss token-faithful session (family gpt-oss, detected from the model folder)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'gpt-oss', reasoningParser: 'openai_gptoss', toolCallParser: 'openai' });
  });

  it('a turn ended by <|call|> can be extended; one ended by <|return|> cannot (Harmony writes it back with <|end|>)', async () => {
    const renderer = createLocalPromptRenderer(folder.dir, familyByName('gpt-oss'));
    const base = { model: MODEL, tools: [READ_FILE_TOOL], chatTemplateKwargs: null, chatTemplate: null, addGenerationPrompt: true };
    const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] };
    const afterCall = [{ role: 'user', content: 'Hi' }, call, { role: 'tool', tool_call_id: 'c1', content: 'x' }];
    expect(await renderer.renderAfterTurn({ ...base, messages: afterCall }, 2, 200012, AbortSignal.timeout(30_000))).not.toBeNull();
    const afterAnswer = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Again' },
    ];
    // the sampled <|return|> is nowhere in the rendered history, so the next user turn is rendered fresh (a new sample)
    expect(await renderer.renderAfterTurn({ ...base, messages: afterAnswer }, 2, 200002, AbortSignal.timeout(30_000))).toBeNull();
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): tool calls, a tool error, an answer; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('chat'), apiKey: 'x', maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What does src/a.ts export, and src/missing.ts?' }];
      const answers: OpenAI.Chat.Completions.ChatCompletionMessage[] = [];
      const finishes: string[] = [];
      const reasonings: string[] = [];
      for (let turn = 0; turn < 3; turn++) {
        const params = { model: MODEL, messages, tools: [READ_FILE_TOOL] };
        // the SDK's accumulator keeps only the last delta of a field it does not know, so streamed reasoning is summed here
        let streamedReasoning = '';
        const runner = stream ? client.chat.completions.stream({ ...params, stream: true }) : null;
        runner?.on('chunk', (chunk) => (streamedReasoning += (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? ''));
        const choice =
          runner !== null ? (await runner.finalChatCompletion()).choices[0]! : (await client.chat.completions.create(params)).choices[0]!;
        reasonings.push(stream ? streamedReasoning : ((choice.message as { reasoning?: string }).reasoning ?? ''));
        answers.push(choice.message);
        finishes.push(choice.finish_reason);
        messages.push(choice.message as ChatCompletionMessageParam);
        for (const call of choice.message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: TOOL_RESULTS[turn]! });
      }
      expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop']);
      // vLLM's whole answer has tool_calls: [] without calls, a stream none
      const calls = (answer: OpenAI.Chat.Completions.ChatCompletionMessage): unknown =>
        answer.tool_calls === undefined || answer.tool_calls.length === 0
          ? null
          : answer.tool_calls.map((call) => call.type === 'function' && call.function);
      // whole: json.dumps(json.loads(arguments)); streamed: the arguments as the model wrote them (compact JSON)
      expect(answers.map(calls)).toEqual([
        [{ name: 'read_file', arguments: stream ? '{"path":"src/a.ts"}' : '{"path": "src/a.ts"}' }],
        [{ name: 'read_file', arguments: stream ? '{"path":"src/missing.ts"}' : '{"path": "src/missing.ts"}' }],
        null,
      ]);
      // the preamble (commentary without a recipient) is content, as in vLLM
      expect(answers.map((answer) => answer.content ?? null)).toEqual([null, REPLIES[1]!.content, REPLIES[2]!.content]);
      expect(reasonings).toEqual(REPLIES.map((reply) => reply.reasoning));
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
      // the analysis channel comes back as a thinking block
      expect(answers.map((message) => message.content.find((block) => block.type === 'thinking')?.thinking)).toEqual(
        REPLIES.map((reply) => reply.reasoning),
      );
      expect(answers[0]!.content.filter((block) => block.type !== 'thinking')).toEqual([
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/a.ts' } }),
      ]);
      expect(answers[1]!.content.filter((block) => block.type !== 'thinking')).toEqual([
        expect.objectContaining({ type: 'text', text: REPLIES[1]!.content }),
        expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/missing.ts' } }),
      ]);
      expect(answers[2]!.content.filter((block) => block.type !== 'thinking')).toEqual([
        expect.objectContaining({ type: 'text', text: REPLIES[2]!.content }),
      ]);
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
      // whole: json.dumps(json.loads(arguments)); streamed: the arguments as the model wrote them (compact JSON)
      expect(responses.map(responseSaid)).toEqual([
        { calls: [{ name: 'read_file', arguments: stream ? '{"path":"src/a.ts"}' : '{"path": "src/a.ts"}' }], text: null },
        { calls: [{ name: 'read_file', arguments: stream ? '{"path":"src/missing.ts"}' : '{"path": "src/missing.ts"}' }], text: REPLIES[1]!.content },
        { calls: null, text: REPLIES[2]!.content },
      ]);
      // the analysis channel comes back as a reasoning item
      const reasoning = (response: OpenAI.Responses.Response): unknown =>
        response.output.flatMap((item) => (item.type === 'reasoning' ? (item.content ?? item.summary).map((part) => part.text) : [])).join('');
      expect(responses.map(reasoning)).toEqual(REPLIES.map((reply) => reply.reasoning));
      expectOneSample('responses');
    });
  }
});
