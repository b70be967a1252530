import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../../helpers/expect-calls-match-sim.js';

const MODEL = 'Qwen/Qwen3-8B';
const SCRIPT: SimScript = { replies: [{ match: { endpoint: 'completions' }, times: 'forever', text: ' Paris, of course.' }], otherwise: 'error' };
/** "The capital of France is" in Qwen3 ids */
const PROMPT_IDS = [785, 6722, 315, 9625, 374];

let setup: GatewayWithSim;

beforeEach(async () => {
  setup = await startGatewayWithSim({ script: SCRIPT });
});

afterEach(async () => {
  await setup.close();
});

function clientFor(session: string): OpenAI {
  return new OpenAI({ baseURL: setup.openaiBase(session), apiKey: 'x', maxRetries: 0 });
}

/** Runs one completion through the openai client, streamed or not, and returns the text and what the harness saw. */
async function complete(
  session: string,
  prompt: string | number[],
  stream: boolean,
  extra: Record<string, unknown> = {},
): Promise<{ text: string; seen: Array<Record<string, unknown>> }> {
  const client = clientFor(session);
  if (!stream) {
    const completion = await client.completions.create({ model: MODEL, prompt, max_tokens: 32, ...extra });
    return { text: completion.choices[0]?.text ?? '', seen: [completion as unknown as Record<string, unknown>] };
  }
  const chunks = await client.completions.create({ model: MODEL, prompt, max_tokens: 32, stream: true, ...extra });
  const seen: Array<Record<string, unknown>> = [];
  for await (const chunk of chunks) seen.push(chunk as unknown as Record<string, unknown>);
  return { text: seen.map((chunk) => (chunk.choices as Array<{ text: string }>)[0]?.text ?? '').join(''), seen };
}

describe('the official openai client on /v1/completions', () => {
  for (const stream of [false, true]) {
    for (const kind of ['string', 'token-id'] as const) {
      it(`records a ${kind} prompt token-exact and hides the ids and logprobs it injected (${stream ? 'streaming' : 'non-streaming'})`, async () => {
        const session = `${kind}-${stream}`;
        const prompt = kind === 'string' ? 'The capital of France is' : PROMPT_IDS;
        const { text, seen } = await complete(session, prompt, stream);
        expect(text).toBe(' Paris, of course.');
        const calls = setup.gateway.store.listCalls(session);
        expect(calls.map((call) => [call.frontDoor, call.status, call.stream, call.finishReason])).toEqual([
          ['openai-completions', 'ok', stream, 'stop'],
        ]);
        expectCallsMatchSim(calls, setup.sim.log);
        if (kind === 'token-id') expect(Array.from(calls[0]?.promptTokenIds ?? [])).toEqual(PROMPT_IDS);
        else expect(setup.sim.log[0]?.promptText).toBe('The capital of France is');
        const wire = JSON.stringify(seen);
        expect(wire).not.toMatch(/token_ids|token_logprobs|top_logprobs/);
        expect(seen.every((payload) => (payload.choices as Array<{ logprobs: unknown }>).every((choice) => choice.logprobs === null))).toBe(true);
        if (stream) expect(seen.some((payload) => 'usage' in payload && payload.usage !== undefined && payload.usage !== null)).toBe(false);
        const bodies = setup.gateway.store.getCallBodies(calls[0]?.id ?? '');
        expect(bodies?.backendRequestBody).toMatchObject({
          return_token_ids: true,
          logprobs: 1,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        });
        expect(bodies?.requestBody).not.toHaveProperty('return_token_ids');
      });
    }
  }

  it('passes on the ids and logprobs the harness asked for itself, trimmed to its own k', async () => {
    const { seen } = await complete('asks', PROMPT_IDS, false, { logprobs: 2, return_token_ids: true });
    const choice = (
      seen[0]?.choices as Array<Record<string, unknown> & { logprobs: { token_logprobs: number[]; top_logprobs: Array<Record<string, number>> } }>
    )[0];
    const call = setup.gateway.store.listCalls('asks')[0];
    expect(choice?.prompt_token_ids).toEqual(PROMPT_IDS);
    expect(choice?.token_ids).toEqual(Array.from(call?.completionTokenIds ?? []));
    expect(choice?.logprobs.token_logprobs.map(Math.fround)).toEqual(Array.from(call?.completionLogprobs ?? []));
    expect(choice?.logprobs.top_logprobs.every((top) => Object.keys(top).length <= 3)).toBe(true);
  });

  it('trims alternatives tokentap added for --top-logprobs down to the harness k', async () => {
    await setup.close();
    setup = await startGatewayWithSim({ script: SCRIPT }, { topLogprobs: 5 });
    const { seen } = await complete('trim', 'The capital of France is', false, { logprobs: 1 });
    const choice = (seen[0]?.choices as Array<{ logprobs: { tokens: string[]; top_logprobs: Array<Record<string, number>> } }>)[0];
    choice?.logprobs.top_logprobs.forEach((top, position) => {
      expect(Object.keys(top).length).toBeLessThanOrEqual(2);
      expect(top).toHaveProperty([choice.logprobs.tokens[position] ?? '']);
    });
    const backend = setup.gateway.store.getCallBodies(setup.gateway.store.listCalls('trim')[0]?.id ?? '')?.backendRequestBody;
    expect(backend).toMatchObject({ logprobs: 5 });
  });

  it('refuses a list of prompts, n > 1 and echo with a 400 naming the field, recording nothing', async () => {
    const client = clientFor('refused');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ prompt: ['a', 'b'] }, 'prompt'],
      [{ prompt: [[1, 2], [3]] }, 'prompt'],
      [{ prompt: 'a', n: 2 }, 'n'],
      [{ prompt: 'a', best_of: 3 }, 'best_of'],
      [{ prompt: 'a', echo: true }, 'echo'],
      [{ prompt: 42 }, 'prompt'],
    ];
    for (const [body, param] of cases) {
      const failure = await client.completions
        .create({ model: MODEL, ...body } as unknown as OpenAI.CompletionCreateParamsNonStreaming)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param });
    }
    expect(setup.gateway.store.listSessions()).toEqual([]);
  });

  it('accepts a one-element list as one prompt', async () => {
    const { text } = await complete('one-element', ['The capital of France is'] as unknown as string, false);
    expect(text).toBe(' Paris, of course.');
    expectCallsMatchSim(setup.gateway.store.listCalls('one-element'), setup.sim.log);
  });
});
