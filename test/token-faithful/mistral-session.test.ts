import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLocalPromptRenderer } from '../../gateway/token-faithful/local-prompt-renderer.js';
import { familyByName } from '../../model-format/families/model-families.js';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { mistralModelFolder } from './mistral-model-folder.js';
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
const QUESTION = 'What do src/a.ts, src/missing.ts and src/b.ts export?';
const RESULT: ToolResult = (turn, index) => ({ content: TOOL_RESULTS[turn]![index]!, isError: turn === 0 && index === 1 });

let folder: { dir: string; remove: () => void };
// the same folder with [ARGS] among its tokens: a v11+ tokenizer, so the sim writes [TOOL_CALLS]NAME[ARGS]{…} and the
// gateway reads mistral-v11 (no v11 template could be had: 7B v0.3's still renders; the calls' turns are extended from ids)
let v11Folder: { dir: string; remove: () => void };
let setup: GatewayWithSim | undefined;
beforeAll(() => {
  folder = mistralModelFolder();
  v11Folder = mistralModelFolder({ v11: true });
});
afterAll(() => {
  folder.remove();
  v11Folder.remove();
});
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The simulator speaking Mistral (picked from the folder's template) behind a token-faithful gateway of family auto. */
async function start(replies: SimReply[] = REPLIES, dir = folder.dir): Promise<GatewayWithSim> {
  return startGatewayWithSim({ script: orderedScript(replies), tokenizerDir: dir, modelName: MODEL }, { tokenFaithful: '*', modelDir: dir });
}

/**
 * The session's three calls extend one another and export as one sample the verifier accepts; the last prompt answers
 * the calls with the ids the client was given (`modelIds`: the nine characters the model's calls got, in call order).
 */
async function expectOneSample(session: string, dir: string, modelIds: string[]): Promise<void> {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(3);
  expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
  expectPromptChain(calls);
  // each turn ended with </s> (128001 in the test tokenizer), kept in the completion ids
  expect(calls.map((call) => call.completionTokenIds?.at(-1))).toEqual([128001, 128001, 128001]);
  const samples = reconstructSession(setup!.gateway.store, session, { strategy: 'merge' });
  expect(samples.map((sample) => verifySample(sample, calls))).toEqual([{ ok: true }]);
  // the template writes each tool result's call_id (its last nine characters) into [TOOL_RESULTS]
  const lastPrompt = (await loadHfTokenizer(dir)).decode([...calls[2]!.promptTokenIds!]);
  expect([...lastPrompt.matchAll(/"call_id": "([^"]*)"/g)].map((match) => match[1])).toEqual(modelIds);
}

for (const parser of ['mistral', 'mistral-v11'] as const) {
  const dir = (): string => (parser === 'mistral' ? folder : v11Folder).dir;
  describe(`a Mistral token-faithful session (family mistral, detected from a tokenizer folder built for the test), ${parser}`, () => {
    it('shows the family on /healthz', async () => {
      setup = await start(REPLIES, dir());
      const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: { family: unknown } };
      expect(health.tokenFaithful.family).toEqual({ name: 'mistral', reasoningParser: 'none', toolCallParser: parser });
    });

    for (const stream of [false, true]) {
      it(`Chat Completions (${stream ? 'streamed' : 'not streamed'}): parallel tool calls, a tool error, an answer; one sample`, async () => {
        setup = await start(REPLIES, dir());
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
        // Mistral's ids: nine letters and digits, as vLLM makes them (the template takes only such ids back)
        const ids = answers.flatMap((answer) => (answer.tool_calls ?? []).map((call) => call.id));
        for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
        expect(answers.map((answer) => answer.content ?? null)).toEqual(['Reading both.', null, REPLIES[2]!.content]);
        await expectOneSample('chat', dir(), ids);
        // the model wrote its tokenizer's syntax
        expect(setup.sim.log[0]!.text).toContain(parser === 'mistral' ? '[TOOL_CALLS] [{"name": "read_file"' : '[TOOL_CALLS]read_file[ARGS]{');
      });

      it(`Anthropic Messages (${stream ? 'streamed' : 'not streamed'}): parallel tool_use, an is_error result, text; one sample`, async () => {
        setup = await start(REPLIES, dir());
        const client = new Anthropic({ baseURL: `${setup.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
        const answers = await anthropicToolLoop(client, { question: QUESTION, turns: 3, stream, result: RESULT });
        expect(answers.map((message) => message.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
        expect(answers[0]!.content).toEqual([
          expect.objectContaining({ type: 'text', text: REPLIES[0]!.content }),
          expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/a.ts' } }),
          expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/missing.ts' } }),
        ]);
        expect(answers[1]!.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'read_file', input: { path: 'src/b.ts' } })]);
        expect(answers[2]!.content).toEqual([expect.objectContaining({ type: 'text', text: REPLIES[2]!.content })]);
        // the model's nine-character id after Anthropic's prefix; the template's [-9:] takes it back
        const ids = answers.flatMap((answer) => answer.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])));
        for (const id of ids) expect(id).toMatch(/^toolu_[A-Za-z0-9]{9}$/);
        const modelIds = ids.map((id) => id.slice('toolu_'.length));
        await expectOneSample('anthropic', dir(), modelIds);
      });

      it(`Responses (${stream ? 'streamed' : 'not streamed'}): parallel function calls, a tool error, a message; one sample`, async () => {
        setup = await start(REPLIES, dir());
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
        // Mistral's ids: nine letters and digits, as vLLM makes them (the template takes only such ids back)
        const ids = responses.flatMap((response) => response.output.flatMap((item) => (item.type === 'function_call' ? [item.call_id] : [])));
        for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
        await expectOneSample('responses', dir(), ids);
      });
    }
  });
}

// Two user turns, each with a tool call and an answer. Mistral's templates put [AVAILABLE_TOOLS] (and 7B v0.3 the
// system prompt) before the LAST user message, so a fresh render of the second turn's conversation moves them there,
// away from the first user message. The gateway extends the earlier turn's ids instead: the model is sent the first
// turn exactly as it saw and sampled it, then the template's rendering of the new messages, which lists the tools
// (and the system prompt) again before the new user message. That extended prompt is what the backend generated from,
// and what the sample holds.
const TWO_TURN_REPLIES: SimReply[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] },
  { content: 'a.ts exports a().' },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/b.ts' } }] },
  { content: 'b.ts exports b.' },
];
const SYSTEM = 'You answer from the files.';

/** Two user turns through Chat Completions, each answered by a tool loop that ends in an answer. */
async function twoUserTurns(client: OpenAI, stream: boolean): Promise<ChatCompletionMessageParam[]> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
  for (const question of ['What does src/a.ts export?', 'And src/b.ts?']) {
    messages.push({ role: 'user', content: question });
    for (let step = 0; step < 2; step++) {
      const params = { model: MODEL, messages, tools: [READ_FILE_TOOL] };
      const choice = stream
        ? (await client.chat.completions.stream({ ...params, stream: true }).finalChatCompletion()).choices[0]!
        : (await client.chat.completions.create(params)).choices[0]!;
      messages.push(choice.message as ChatCompletionMessageParam);
      for (const call of choice.message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: 'export ...' });
    }
  }
  return messages;
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('a Mistral token-faithful session with a second user message', () => {
  for (const stream of [false, true]) {
    it(`extends the first turn's ids and gets the tools again before the new message (${stream ? 'streamed' : 'not streamed'}); one sample`, async () => {
      setup = await start(TWO_TURN_REPLIES);
      const client = new OpenAI({ baseURL: setup.openaiBase('two-turns'), apiKey: 'x', maxRetries: 0 });
      const messages = await twoUserTurns(client, stream);
      expect(messages.filter((message) => message.role === 'assistant').map((message) => message.content ?? null)).toEqual([
        null,
        'a.ts exports a().',
        null,
        'b.ts exports b.',
      ]);

      const stored = setup.gateway.store.listCalls('two-turns');
      expect(stored.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend', 'extend']);
      expectPromptChain(stored);
      // what the backend generated from is what was recorded, call for call: the sample claims no other context
      expect(setup.sim.log.map((record) => record.promptTokenIds)).toEqual(stored.map((call) => [...call.promptTokenIds!]));
      const samples = reconstructSession(setup.gateway.store, 'two-turns', { strategy: 'merge' });
      expect(samples.map((sample) => verifySample(sample, stored))).toEqual([{ ok: true }]);

      // the second user turn's prompt: the first turn as sent and sampled, then the tools and the system prompt again
      const tokenizer = await loadHfTokenizer(folder.dir);
      const secondTurn = tokenizer.decode([...stored[2]!.promptTokenIds!]);
      const firstTurnEnd = stored[1]!.promptTokenIds!.length + stored[1]!.completionTokenIds!.length;
      const newPart = tokenizer.decode([...stored[2]!.promptTokenIds!.slice(firstTurnEnd)]);
      expect(newPart.startsWith('[AVAILABLE_TOOLS] [{"type": "function", "function": {"name": "read_file"')).toBe(true);
      expect(newPart.endsWith(`[/AVAILABLE_TOOLS][INST] ${SYSTEM}\n\nAnd src/b.ts?[/INST]`)).toBe(true);
      expect([count(secondTurn, '[AVAILABLE_TOOLS]'), count(secondTurn, SYSTEM)]).toEqual([2, 2]);
      // a fresh render of the same conversation has them once, before the new message: not what the model was sent
      const renderer = createLocalPromptRenderer(folder.dir, familyByName('mistral'));
      const request = { model: MODEL, messages: messages.slice(0, 6) as unknown as Array<Record<string, unknown>>, tools: [READ_FILE_TOOL] };
      const fresh = tokenizer.decode(
        await renderer.renderFull(
          { ...request, chatTemplateKwargs: null, chatTemplate: null, addGenerationPrompt: true },
          new AbortController().signal,
        ),
      );
      expect([count(fresh, '[AVAILABLE_TOOLS]'), count(fresh, SYSTEM)]).toEqual([1, 1]);
      expect(fresh.startsWith('<s>[INST] What does src/a.ts export?[/INST]')).toBe(true);
    });
  }
});
