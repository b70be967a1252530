import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { createLocalPromptRenderer } from '../../gateway/token-faithful/local-prompt-renderer.js';
import { familyByName } from '../../model-format/families/model-families.js';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { gptOssModelFolder } from './gpt-oss-model-folder.js';
import { expectPromptChain, extendsCall, orderedScript } from './token-faithful-fixtures.js';
import { anthropicToolLoop, functionCalls, READ_FILE_TOOL, responsesToolLoop, responseSaid, type ToolResult } from './tool-loop-drivers.js';

const MODEL = 'openai/gpt-oss-20b';
// what the simulated model means to say over two user turns: reasoning, a call per turn (a Harmony completion stops at
// its first <|call|>), then an answer; the second question gets one call and an answer. The expected answers below
// were traced by hand from vLLM's harmony code (openai_tool_parser.py for the whole answer,
// extract_harmony_streaming_delta for the stream): no vLLM was run here
const REPLIES: SimReply[] = [
  { reasoning: 'Read a.ts first.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
  { reasoning: 'Now missing.ts.', content: 'Checking the second file.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/missing.ts' } }] },
  { reasoning: 'Both read.', content: 'a.ts exports one function; missing.ts does not exist.' },
  { reasoning: 'Read b.ts.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { reasoning: 'b.ts read.', content: 'b.ts exports b().' },
];
const QUESTIONS = ['What does src/a.ts export, and src/missing.ts?', 'And src/b.ts?'];
// the tool results by turn (turns 2 and 4 are answers); the second is a tool error
const TOOL_RESULTS: Record<number, string> = {
  0: 'export function a() {}',
  1: 'Error: ENOENT: no such file or directory',
  3: 'export function b() {}',
};
const RESULT: ToolResult = (turn) => ({ content: TOOL_RESULTS[turn]!, isError: turn === 1 });
// <|call|> ends a tool call, <|return|> an answer (o200k_harmony)
const CALL = 200012;
const RETURN = 200002;

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

/**
 * The simulator speaking Harmony (picked from the folder's config.json), as vLLM or as SGLang, behind a token-faithful
 * gateway of family auto.
 */
async function start(flavour: 'vllm' | 'sglang' = 'vllm'): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: orderedScript(REPLIES), tokenizerDir: folder.dir, modelName: MODEL, flavour },
    { tokenFaithful: '*', modelDir: folder.dir },
  );
}

/** The session through Chat Completions with the real openai client, each answer checked against what the simulator meant. */
async function chatSession(session: string, stream: boolean): Promise<void> {
  const client = new OpenAI({ baseURL: setup!.openaiBase(session), apiKey: 'x', maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTIONS[0]! }];
  const answers: OpenAI.Chat.Completions.ChatCompletionMessage[] = [];
  const finishes: string[] = [];
  const reasonings: string[] = [];
  for (let turn = 0; turn < REPLIES.length; turn++) {
    const params = { model: MODEL, messages, tools: [READ_FILE_TOOL] };
    // the SDK's accumulator keeps only the last delta of a field it does not know, so streamed reasoning is summed here
    let streamedReasoning = '';
    const runner = stream ? client.chat.completions.stream({ ...params, stream: true }) : null;
    runner?.on('chunk', (chunk) => (streamedReasoning += (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? ''));
    const choice = runner !== null ? (await runner.finalChatCompletion()).choices[0]! : (await client.chat.completions.create(params)).choices[0]!;
    reasonings.push(stream ? streamedReasoning : ((choice.message as { reasoning?: string }).reasoning ?? ''));
    answers.push(choice.message);
    finishes.push(choice.finish_reason);
    messages.push(choice.message as ChatCompletionMessageParam);
    for (const call of choice.message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: TOOL_RESULTS[turn]! });
    if (turn === 2) messages.push({ role: 'user', content: QUESTIONS[1]! });
  }
  expect(finishes).toEqual(['tool_calls', 'tool_calls', 'stop', 'tool_calls', 'stop']);
  // whole: json.dumps(json.loads(arguments)); streamed: the arguments as the model wrote them (compact JSON)
  const read = (path: string) => [{ name: 'read_file', arguments: stream ? `{"path":"${path}"}` : `{"path": "${path}"}` }];
  expect(answers.map(functionCalls)).toEqual([read('src/a.ts'), read('src/missing.ts'), null, read('src/b.ts'), null]);
  // the preamble (commentary without a recipient) is content, as in vLLM
  expect(answers.map((answer) => answer.content ?? null)).toEqual(REPLIES.map((reply) => reply.content ?? null));
  expect(reasonings).toEqual(REPLIES.map((reply) => reply.reasoning));
}

const BASE = { model: MODEL, tools: [READ_FILE_TOOL], chatTemplateKwargs: null, chatTemplate: null, addGenerationPrompt: true };

/**
 * The session's five calls are one chain and one sample: each prompt the previous prompt + the sampled completion
 * (its <|call|> or <|return|>, its analysis kept) + Harmony's rendering of the new messages, as the simulator received it.
 */
async function expectOneSample(session: string): Promise<void> {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(5);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend', 'extend', 'extend']);
  expect(calls[0]!.metadata.tokenFaithful).toEqual({ mode: 'fresh', reason: 'first-call' });
  expectPromptChain(calls);
  expect(setup!.sim.log.map((record) => record.promptTokenIds)).toEqual(calls.map((call) => [...call.promptTokenIds!]));
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([CALL, CALL, RETURN, CALL, RETURN]);
  // the first call is rendered fresh, as vLLM would render the first question
  const renderer = createLocalPromptRenderer(folder.dir, familyByName('gpt-oss'));
  const first = await renderer.renderFull({ ...BASE, messages: [{ role: 'user', content: QUESTIONS[0] }] }, AbortSignal.timeout(30_000));
  expect([...calls[0]!.promptTokenIds!]).toEqual(first);
  // after the answer the second question follows the sampled <|return|> directly (Harmony alone would write the answer
  // back with <|end|> and drop its analysis)
  const tokenizer = await loadHfTokenizer(folder.dir);
  const answered = calls[2]!.promptTokenIds!.length + calls[2]!.completionTokenIds!.length;
  expect(tokenizer.decode([...calls[2]!.completionTokenIds!])).toBe(
    `<|channel|>analysis<|message|>${REPLIES[2]!.reasoning}<|end|><|start|>assistant<|channel|>final<|message|>${REPLIES[2]!.content}<|return|>`,
  );
  expect(tokenizer.decode([...calls[3]!.promptTokenIds!.slice(answered)])).toBe(`<|start|>user<|message|>${QUESTIONS[1]}<|end|><|start|>assistant`);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
}

describe('a gpt-oss token-faithful session (family gpt-oss, detected from the model folder)', () => {
  it('shows the family on /healthz', async () => {
    setup = await start();
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
    expect(health.tokenFaithful.family).toEqual({ name: 'gpt-oss', reasoningParser: 'openai_gptoss', toolCallParser: 'openai', renderer: 'harmony' });
  });

  it("a turn ended by <|call|> or by <|return|> is extended by Harmony's rendering of just the new messages", async () => {
    const renderer = createLocalPromptRenderer(folder.dir, familyByName('gpt-oss'));
    const tokenizer = await loadHfTokenizer(folder.dir);
    const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] };
    const afterCall = [{ role: 'user', content: 'Hi' }, call, { role: 'tool', tool_call_id: 'c1', content: 'x' }];
    const newAfterCall = await renderer.renderAfterTurn({ ...BASE, messages: afterCall }, 2, CALL, AbortSignal.timeout(30_000));
    expect(tokenizer.decode(newAfterCall!)).toBe(
      '<|start|>functions.read_file to=assistant<|channel|>commentary<|message|>x<|end|><|start|>assistant',
    );
    // Harmony writes the answer back with <|end|>, not the sampled <|return|>, and drops its analysis: the cut is found
    // after the answer's <|end|>, and the sampled ids are kept before it (the earlier prompt + completion)
    const afterAnswer = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.', reasoning: 'Greet back.' },
      { role: 'user', content: 'Again' },
    ];
    const newAfterAnswer = await renderer.renderAfterTurn({ ...BASE, messages: afterAnswer }, 2, RETURN, AbortSignal.timeout(30_000));
    expect(tokenizer.decode(newAfterAnswer!)).toBe('<|start|>user<|message|>Again<|end|><|start|>assistant');
    // a system message among the new ones adds Harmony's developer message, one more <|end|> before the answer: the
    // count would cut after the first question and send the answer twice, so the call is rendered fresh instead
    const withInstructions = [...afterAnswer.slice(0, 2), { role: 'system', content: 'Be brief.' }, afterAnswer[2]!];
    const request = { ...BASE, tools: null, messages: withInstructions };
    expect(await renderer.renderAfterTurn(request, 2, RETURN, AbortSignal.timeout(30_000))).toBeNull();
  });

  for (const stream of [false, true]) {
    it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): two questions, tool calls, a tool error, two answers; one sample`, async () => {
      setup = await start();
      await chatSession('chat', stream);
      await expectOneSample('chat');
    });
  }

  for (const stream of [false, true]) {
    it(`Chat Completions over SGLang's /generate (${stream ? 'streamed' : 'not streamed'}): Harmony's markers asked for and kept; one sample`, async () => {
      setup = await start('sglang');
      await chatSession('sglang', stream);
      // the simulator leaves special tokens out of /generate's text unless asked skip_special_tokens: false, as SGLang
      // does: without them the answers above could not have been read
      expect(setup.sim.log.map((record) => [record.endpoint, record.text.startsWith('<|channel|>analysis<|message|>')])).toEqual(
        REPLIES.map(() => ['generate', true]),
      );
      await expectOneSample('sglang');
    });
  }

  for (const stream of [false, true]) {
    it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): two questions, tool_use, an is_error result, text; one sample`, async () => {
      setup = await start();
      const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const answers = await anthropicToolLoop(client, {
        question: QUESTIONS[0]!,
        followUps: [QUESTIONS[1]!],
        turns: REPLIES.length,
        stream,
        result: RESULT,
      });
      expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn', 'tool_use', 'end_turn']);
      // the analysis channel comes back as a thinking block
      expect(answers.map((message) => message.content.find((block) => block.type === 'thinking')?.thinking)).toEqual(
        REPLIES.map((reply) => reply.reasoning),
      );
      const said = (message: Anthropic.Message): unknown =>
        message.content.flatMap((block): unknown[] =>
          block.type === 'text' ? [{ text: block.text }] : block.type === 'tool_use' ? [{ name: block.name, input: block.input }] : [],
        );
      expect(answers.map(said)).toEqual([
        [{ name: 'read_file', input: { path: 'src/a.ts' } }],
        [{ text: REPLIES[1]!.content }, { name: 'read_file', input: { path: 'src/missing.ts' } }],
        [{ text: REPLIES[2]!.content }],
        [{ name: 'read_file', input: { path: 'src/b.ts' } }],
        [{ text: REPLIES[4]!.content }],
      ]);
      await expectOneSample('anthropic');
    });
  }

  for (const stream of [false, true]) {
    it(`Responses (${stream ? 'streamed' : 'not streamed'}): two questions, function calls, a tool error, messages; one sample`, async () => {
      setup = await start();
      const client = new OpenAI({ baseURL: setup.openaiBase('responses'), apiKey: 'x', maxRetries: 0 });
      const responses = await responsesToolLoop(client, MODEL, {
        question: QUESTIONS[0]!,
        followUps: [QUESTIONS[1]!],
        turns: REPLIES.length,
        stream,
        result: RESULT,
      });
      // whole: json.dumps(json.loads(arguments)); streamed: the arguments as the model wrote them (compact JSON)
      const read = (path: string) => [{ name: 'read_file', arguments: stream ? `{"path":"${path}"}` : `{"path": "${path}"}` }];
      expect(responses.map(responseSaid)).toEqual([
        { calls: read('src/a.ts'), text: null },
        { calls: read('src/missing.ts'), text: REPLIES[1]!.content },
        { calls: null, text: REPLIES[2]!.content },
        { calls: read('src/b.ts'), text: null },
        { calls: null, text: REPLIES[4]!.content },
      ]);
      // the analysis channel comes back as a reasoning item
      const reasoning = (response: OpenAI.Responses.Response): unknown =>
        response.output.flatMap((item) => (item.type === 'reasoning' ? (item.content ?? item.summary).map((part) => part.text) : [])).join('');
      expect(responses.map(reasoning)).toEqual(REPLIES.map((reply) => reply.reasoning));
      await expectOneSample('responses');
    });
  }

  it('breaks the chain where the harness edited the answer it sends back: history-edited, naming the call and the message', async () => {
    setup = await startGatewayWithSim(
      { script: orderedScript([{ reasoning: 'Greet.', content: 'Hello.' }, { content: 'Again.' }]), tokenizerDir: folder.dir, modelName: MODEL },
      { tokenFaithful: '*', modelDir: folder.dir },
    );
    const client = new OpenAI({ baseURL: setup.openaiBase('edited'), apiKey: 'x', maxRetries: 0 });
    const first = (await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] })).choices[0]!.message;
    expect(first.content).toBe('Hello.');
    const edited: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there.' },
      { role: 'user', content: 'Again' },
    ];
    await client.chat.completions.create({ model: MODEL, messages: edited });
    const calls = setup.gateway.store.listCalls('edited');
    expect(calls[1]!.metadata.tokenFaithful).toEqual({ mode: 'fresh', reason: 'history-edited', againstCallId: calls[0]!.id, divergedAt: 1 });
    expect(extendsCall(calls[1]!, calls[0]!)).toBe(false);
    // rendered fresh: Harmony's own rendering of the edited history
    const renderer = createLocalPromptRenderer(folder.dir, familyByName('gpt-oss'));
    const fresh = await renderer.renderFull(
      { ...BASE, tools: null, messages: edited as unknown as Array<Record<string, unknown>> },
      AbortSignal.timeout(30_000),
    );
    expect([...calls[1]!.promptTokenIds!]).toEqual(fresh);
    expect(reconstructSession(setup.gateway.store, 'edited', { strategy: 'merge' })).toHaveLength(2);
  });
});
