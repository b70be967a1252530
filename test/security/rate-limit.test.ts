import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { gatewayConfigSchema } from '../../gateway/config/gateway-config.js';
import { BODY_ENDPOINTS } from '../gateway/hostile-input/hostile-endpoints.js';
import { expectErrorShape, type Protocol } from '../gateway/hostile-input/protocol-shapes.js';
import { storeFingerprint } from '../gateway/hostile-input/store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-security-tests-42';
const chat = BODY_ENDPOINTS.find((endpoint) => endpoint.name === 'chat completions')?.valid;
const messages = BODY_ENDPOINTS.find((endpoint) => endpoint.name === 'messages')?.valid;

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Two requests per bucket, then one token per 1000 s: nothing refills while a test runs. */
function startLimited(): Promise<GatewayWithSim> {
  return startGatewayWithSim(
    { script: { replies: [{ times: 'forever', content: 'fine' }] } },
    { adminToken: ADMIN_TOKEN, rateLimit: { requestsPerSecond: 0.001, burst: 2 } },
  );
}

async function send(
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string; retryAfter: string | null }> {
  const response = await fetch(`${(setup as GatewayWithSim).url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
}

function expectRateLimited(answer: { status: number; text: string; retryAfter: string | null }, protocol: Protocol): void {
  expect(answer.status, answer.text).toBe(429);
  expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  const body = expectErrorShape(protocol, answer.text);
  if (protocol === 'anthropic') expect(body).toMatchObject({ error: { type: 'rate_limit_error' } });
  else expect(body).toMatchObject({ error: { code: 'TT_RATE_LIMITED' } });
}

describe('rate limit per session key, admin token or client address', () => {
  it('is off by default', async () => {
    expect(gatewayConfigSchema.parse({}).rateLimit).toBeUndefined();
    setup = await startGatewayWithSim({ fast: true }, {});
    const statuses = await Promise.all(Array.from({ length: 30 }, () => send('/v1/models', {}).then((answer) => answer.status)));
    expect(statuses.filter((status) => status === 429)).toEqual([]);
  });

  it('gives each session key its own bucket; a refused call is 429 with Retry-After in the protocol shape and records nothing', async () => {
    setup = await startLimited();
    const keyA = (await setup.gateway.createSession({ id: 'a' })).apiKey;
    const keyB = (await setup.gateway.createSession({ id: 'b' })).apiKey;
    for (let index = 0; index < 2; index += 1)
      expect((await send('/s/a/v1/chat/completions', { authorization: `Bearer ${keyA}` }, chat)).status).toBe(200);
    const before = storeFingerprint(setup.gateway.store);
    expectRateLimited(await send('/s/a/v1/chat/completions', { authorization: `Bearer ${keyA}` }, chat), 'openai');
    expectRateLimited(await send('/s/a/v1/messages', { 'x-api-key': keyA }, messages), 'anthropic');
    expectRateLimited(await send('/tokentap/v1/sessions/a/reward', { authorization: `Bearer ${keyA}` }, { value: 1 }), 'admin');
    expect(storeFingerprint(setup.gateway.store)).toBe(before);
    // B is not slowed down by A, nor are callers without a key
    expect((await send('/s/b/v1/messages', { 'x-api-key': keyB }, messages)).status).toBe(200);
    expect((await send('/s/implicit/v1/chat/completions', {}, chat)).status).toBe(200);
  });

  it("puts callers without a verifiable credential in their address's bucket: a fresh made-up API key per call does not help", async () => {
    setup = await startLimited();
    expect((await send('/v1/models', { authorization: 'Bearer sk-one' })).status).toBe(200);
    expect((await send('/v1/models', { authorization: 'Bearer sk-two' })).status).toBe(200);
    expectRateLimited(await send('/v1/models', { authorization: 'Bearer sk-three' }), 'openai');
    expectRateLimited(await send('/v1/messages/count_tokens', { 'x-api-key': 'tt-forged' }, messages), 'anthropic');
    expectRateLimited(await send('/v1/no-such-route', {}), 'openai');
  });

  it('the admin token has its own bucket; /healthz is never limited', async () => {
    setup = await startLimited();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await send('/tokentap/v1/state', admin)).status).toBe(200);
    expect((await send('/tokentap/v1/state', admin)).status).toBe(200);
    expectRateLimited(await send('/tokentap/v1/state', admin), 'admin');
    expect((await send('/v1/models', {})).status).toBe(200);
    for (let index = 0; index < 5; index += 1) expect((await send('/healthz', {})).status).toBe(200);
  });

  it('is set from the flag and environment as RATE or RATE,BURST', () => {
    expect(gatewayConfigSchema.parse({ rateLimit: '10,40' }).rateLimit).toEqual({ requestsPerSecond: 10, burst: 40 });
    expect(gatewayConfigSchema.safeParse({ rateLimit: 'lots' }).success).toBe(false);
  });
});
