import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { GatewayWithSim } from '../helpers/gateway-with-sim.js';
import {
  answerReply,
  expectPromptChain,
  extendsCall,
  orderedScript,
  startTokenFaithful,
  stepReply,
  toolLoopTurn,
} from './token-faithful-fixtures.js';

const TURNS = 20;
const ANSWER = 'All nineteen notes are read.';
const SCRIPT_REPLIES = [...Array.from({ length: TURNS - 1 }, (_, index) => stepReply(index + 1)), answerReply(ANSWER)];

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/**
 * A tool loop as most harnesses write it (examples/tool-agent.ts): the assistant message goes back with its content
 * and tool calls but without its reasoning, so Qwen3's template renders earlier turns without `<think>`.
 */
async function runToolLoop(baseURL: string, stream: boolean): Promise<{ turns: number; answer: string }> {
  const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You read notes with the tool, one step at a time.' },
    { role: 'user', content: 'Read every note, then say you are done.' },
  ];
  for (let turn = 1; turn <= TURNS; turn++) {
    const { called, content } = await toolLoopTurn(client, messages, stream);
    if (!called) return { turns: turn, answer: content };
  }
  throw new Error('no answer');
}

describe('a 20-turn Qwen3 tool trajectory (thinking on) through the openai client', () => {
  it('breaks the prompt chain at every turn in plain mode: the template drops earlier <think>', async () => {
    setup = await startTokenFaithful(orderedScript(SCRIPT_REPLIES), { tokenFaithful: false });
    const result = await runToolLoop(setup.openaiBase('plain'), false);
    expect(result).toEqual({ turns: TURNS, answer: `\n\n${ANSWER}` });
    const calls = setup.gateway.store.listCalls('plain');
    expect(calls).toHaveLength(TURNS);
    for (let index = 1; index < calls.length; index++) expect(extendsCall(calls[index]!, calls[index - 1]!), `call ${index + 1}`).toBe(false);
    const samples = reconstructSession(setup.gateway.store, 'plain', { strategy: 'merge' });
    expect(samples).toHaveLength(TURNS);
  });

  for (const stream of [false, true]) {
    it(`keeps every prompt token-identical in token-faithful mode (${stream ? 'streamed' : 'not streamed'}): one chain of 20 calls`, async () => {
      setup = await startTokenFaithful(orderedScript(SCRIPT_REPLIES));
      const result = await runToolLoop(setup.openaiBase('faithful'), stream);
      expect(result).toEqual({ turns: TURNS, answer: `\n\n${ANSWER}` });
      const calls = setup.gateway.store.listCalls('faithful');
      expect(calls).toHaveLength(TURNS);
      expectPromptChain(calls);
      const samples = reconstructSession(setup.gateway.store, 'faithful', { strategy: 'merge' });
      expect(samples).toHaveLength(1);
      expect(samples[0]!.callIds).toEqual(calls.map((call) => call.id));
      expect(verifySample(samples[0]!, calls)).toEqual({ ok: true });
      expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual([
        'fresh',
        ...Array<string>(TURNS - 1).fill('extend'),
      ]);
      expect(calls[0]!.metadata.tokenFaithful).toEqual({ mode: 'fresh', reason: 'first-call' });
      expect(calls[1]!.metadata.tokenFaithful).toMatchObject({ mode: 'extend', extends: calls[0]!.id });
      // the recorded ids are what the simulator saw and sampled, reasoning tokens included
      setup.sim.log.forEach((record, index) => {
        expect(Array.from(calls[index]!.promptTokenIds!)).toEqual(record.promptTokenIds);
        expect(Array.from(calls[index]!.completionTokenIds!)).toEqual(record.completionTokenIds);
        expect(record.endpoint).toBe('completions');
      });
      const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { tokenFaithful: Record<string, unknown> };
      expect(health.tokenFaithful).toMatchObject({ extend: TURNS - 1, fresh: 1, plain: 0, reasons: { 'first-call': 1 } });
    });
  }
});
