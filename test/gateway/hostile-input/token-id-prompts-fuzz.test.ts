import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { MODEL } from './hostile-endpoints.js';
import { expectErrorShape } from './protocol-shapes.js';
import { storeFingerprint } from './store-fingerprint.js';

let setup: GatewayWithSim;
beforeAll(async () => {
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } });
});
afterAll(async () => {
  await setup.close();
});

const INT32_MAX = 2 ** 31 - 1;

/** Ids a tokenizer could give, the Int32 edge included, written as JSON writes them. */
const goodId = fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.constantFrom(0, INT32_MAX)).map(String);
/**
 * Numbers that are no Int32 token id, as the JSON text a client sends: past Int32 (up to past 2^53, where a double
 * no longer holds the integer), negative, fractional, and literal spellings a serializer may produce.
 */
const badId = fc.oneof(
  fc.integer({ min: INT32_MAX + 1, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 53, 2 ** 64, 1e300).map(String),
  fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: -1 }).map(String),
  fc
    .double({ min: -1e9, max: 1e9, noNaN: true })
    .filter((value) => !Number.isInteger(value))
    .map(String),
  fc.constantFrom('2147483648', '2147483647.5', '-0.5', '0.5', '1e10', '2.147483648E9', '-1', '1E400', '-1e400'),
);

/** A token-id prompt in one of the forms the front door accepts, with one bad id somewhere in it. */
const hostilePrompt = fc
  .record({
    before: fc.array(goodId, { maxLength: 6 }),
    bad: badId,
    after: fc.array(goodId, { maxLength: 6 }),
    form: fc.constantFrom('flat', 'nested', 'nested-second'),
  })
  .map(({ before, bad, after, form }) => {
    const ids = `[${[...before, bad, ...after].join(',')}]`;
    if (form === 'flat') return ids;
    return form === 'nested' ? `[${ids}]` : `[[${before.join(',')}],${ids}]`;
  });

describe('token-id prompts with an id past Int32, negative or fractional', () => {
  it('are answered 400 in OpenAI shape before any backend request, and the store is unchanged', async () => {
    const backendRequests = setup.sim.log.length;
    const before = storeFingerprint(setup.gateway.store);
    await fc.assert(
      fc.asyncProperty(hostilePrompt, fc.boolean(), fc.constantFrom('', '/s/fuzz-ids'), async (prompt, stream, prefix) => {
        const body = `{"model":${JSON.stringify(MODEL)},"max_tokens":2,"stream":${stream},"prompt":${prompt}}`;
        const response = await fetch(`${setup.url}${prefix}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        const label = `${body}: ${response.status} ${text.slice(0, 300)}`;
        expect(response.status, label).toBe(400);
        const error = expectErrorShape('openai', text, label).error as { code: string; type: string };
        expect(error, label).toMatchObject({ code: 'TT_INVALID_REQUEST', type: 'invalid_request_error' });
        expect(setup.sim.log.length, label).toBe(backendRequests);
        expect(storeFingerprint(setup.gateway.store), label).toBe(before);
      }),
      // the attack as found (issue 12), replayed on every run
      {
        numRuns: 200,
        examples: [
          ['[2147483648]', false, ''],
          ['[2147483648]', true, '/s/fuzz-ids'],
          ['[[2147483648]]', false, ''],
        ],
      },
    );
    const health = await (await fetch(`${setup.url}/healthz`)).json();
    expect(health).toMatchObject({ status: 'ok', recording: { recordingFailures: 0 } });
  }, 120_000);

  it('leave a good token-id prompt in the nested form working: it reaches the backend and is recorded unflagged', async () => {
    const response = await fetch(`${setup.url}/s/fuzz-ids-good/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 2, prompt: [[9707, 11]] }),
    });
    expect(response.status, await response.text()).toBe(200);
    expect(setup.gateway.store.listCalls('fuzz-ids-good')).toMatchObject([{ status: 'ok', flags: [] }]);
  });
});
