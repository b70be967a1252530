import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { sseDataLines } from '../backends/vllm-captures.js';

const MODEL = 'Qwen/Qwen3-8B';

let setup: GatewayWithSim;

beforeAll(async () => {
  setup = await startGatewayWithSim({ maxModelLen: 4096 });
});

afterAll(async () => {
  await setup.close();
});

function post(payload: string, url = '/s/bad/v1/completions') {
  return setup.gateway.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
}

describe('the completions front door rejects bad input in OpenAI shape and records nothing', () => {
  const cases: Array<[string, string, string, string | null]> = [
    ['malformed JSON', '{"prompt": ', 'TT_INVALID_REQUEST', null],
    ['no prompt', JSON.stringify({ model: MODEL }), 'TT_INVALID_REQUEST', 'prompt'],
    ['an empty token list', JSON.stringify({ prompt: [] }), 'TT_INVALID_REQUEST', 'prompt'],
    ['negative token ids', JSON.stringify({ prompt: [1, -2] }), 'TT_INVALID_REQUEST', 'prompt.1'],
    ['a fractional token id', JSON.stringify({ prompt: [1, 2, 3.5] }), 'TT_INVALID_REQUEST', 'prompt.2'],
    ['a string among token ids', JSON.stringify({ prompt: [1, '2'] }), 'TT_INVALID_REQUEST', 'prompt.1'],
    ['logprobs of the wrong type', JSON.stringify({ prompt: 'x', logprobs: true }), 'TT_INVALID_REQUEST', 'logprobs'],
    ['several prompts', JSON.stringify({ prompt: ['a', 'b'] }), 'TT_UNSUPPORTED_FEATURE', 'prompt'],
    ['n > 1', JSON.stringify({ prompt: 'x', n: 3 }), 'TT_UNSUPPORTED_FEATURE', 'n'],
  ];
  for (const [name, payload, code, param] of cases) {
    it(`answers ${name} with 400 ${code}`, async () => {
      const response = await post(payload, `/s/bad-${code}/v1/completions`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', code, ...(param === null ? {} : { param }) });
      expect(setup.gateway.store.listCalls(`bad-${code}`)).toEqual([]);
    });
  }

  it('passes a context-length error on as 400 context_length_exceeded and records it', async () => {
    const response = await post(JSON.stringify({ model: MODEL, prompt: Array.from({ length: 5000 }, () => 1000) }), '/s/too-long/v1/completions');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('context_length_exceeded');
    expect(setup.gateway.store.listCalls('too-long')).toMatchObject([{ status: 'backend_error', frontDoor: 'openai-completions' }]);
  });

  it('ends a stream the backend cuts with an OpenAI error event and no [DONE]', async () => {
    setup.sim.setScript({ replies: [{ text: ' one two three four five', fault: { kind: 'cut-stream', afterTokens: 2 } }] });
    try {
      const response = await post(JSON.stringify({ model: MODEL, prompt: 'Count:', stream: true }), '/s/cut/v1/completions');
      const data = sseDataLines(response.body);
      expect(data.at(-1)).not.toBe('[DONE]');
      expect(JSON.parse(data.at(-1) ?? '{}').error.code).toBe('TT_BACKEND_STREAM_CUT');
      const call = setup.gateway.store.listCalls('cut')[0];
      expect(call).toMatchObject({ status: 'backend_error' });
      expect(call?.completionTokenIds).toHaveLength(2);
    } finally {
      setup.sim.setScript(null);
    }
  });
});

describe('a token-id prompt with an id that is no Int32 token id is refused before the backend (issue 12)', () => {
  // the attack: a client without a credential sent [2147483648]; the backend answered, the store refused the id,
  // the client got 503 TT_RECORDING_FAILED, a row stayed in_progress and /healthz turned degraded
  const attacks: Array<[string, unknown, string]> = [
    ['an id of 2^31', [2147483648], 'prompt.0'],
    ['an id past 2^53 after good ones', [9707, 11, 2 ** 60], 'prompt.2'],
    ['a nested id of 2^31', [[9707, 2147483648]], 'prompt.0.1'],
    ['a nested negative id', [[9707, -1]], 'prompt.0.1'],
    ['a nested fractional id', [[0.5]], 'prompt.0.0'],
  ];
  for (const stream of [false, true]) {
    for (const [name, prompt, param] of attacks) {
      it(`answers ${name}${stream ? ' (streamed)' : ''} with 400 naming it, contacts no backend, records nothing and stays healthy`, async () => {
        const session = `int32-${stream ? 's' : 'n'}-${param.replaceAll('.', '-')}`;
        const backendRequests = setup.sim.log.length;
        const response = await post(JSON.stringify({ model: MODEL, prompt, stream, max_tokens: 4 }), `/s/${session}/v1/completions`);
        expect(response.statusCode, response.body).toBe(400);
        expect(String(response.headers['content-type'])).toContain('application/json');
        expect(response.json()).toEqual({
          error: { message: expect.stringContaining('must be a token id'), type: 'invalid_request_error', param, code: 'TT_INVALID_REQUEST' },
        });
        expect(setup.sim.log.length).toBe(backendRequests);
        expect(setup.gateway.store.listCalls(session)).toEqual([]);
        const health = await setup.gateway.app.inject({ method: 'GET', url: '/healthz' });
        expect(health.json()).toMatchObject({ status: 'ok', recording: { recordingFailures: 0 } });
      });
    }
  }
});

const anything = fc.jsonValue({ maxDepth: 2 });
/** Mostly the right type, now and then any JSON at all. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> => fc.oneof({ weight: 24, arbitrary }, { weight: 1, arbitrary: anything });
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const tokenIds = fc.array(fc.integer({ min: 0, max: 150_000 }), { minLength: 1, maxLength: 12 });
const onePrompt = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), tokenIds, fc.tuple(fc.string({ minLength: 1 })), fc.tuple(tokenIds));
const manyPrompts = fc.oneof(
  fc.array(fc.string({ minLength: 1 }), { minLength: 2, maxLength: 3 }),
  fc.array(tokenIds, { minLength: 2, maxLength: 3 }),
);
const completionsBody = fc.record(
  {
    model: maybe(fc.constant(MODEL)),
    prompt: maybe(fc.oneof({ weight: 9, arbitrary: onePrompt }, { weight: 1, arbitrary: manyPrompts })),
    stream: maybe(fc.boolean()),
    max_tokens: maybe(fc.integer({ min: 1, max: 24 })),
    logprobs: maybe(fc.integer({ min: -1, max: 5 })),
    return_token_ids: maybe(fc.boolean()),
    n: rarely(maybe(fc.integer({ min: 1, max: 3 }))),
    echo: rarely(maybe(fc.boolean())),
    stream_options: rarely(maybe(fc.record({ include_usage: fc.boolean() }))),
  },
  { requiredKeys: ['prompt'] },
);

describe('fuzzed Completions bodies', () => {
  it('get a 4xx in OpenAI shape or a 200, never a 5xx, and leave no call in progress', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: completionsBody }, { weight: 1, arbitrary: anything }), async (body) => {
        const response = await post(JSON.stringify(body), '/s/fuzz/v1/completions');
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode >= 400) {
          expect(response.json().error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
        } else if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          expect(sseDataLines(response.body).at(-1)).toBe('[DONE]');
        } else {
          expect(response.json()).toMatchObject({ object: 'text_completion' });
        }
      }),
      { numRuns: 150 },
    );
    for (const session of setup.gateway.store.listSessions()) {
      expect(setup.gateway.store.listCalls(session.id).filter((call) => call.status === 'in_progress')).toEqual([]);
    }
  });
});
