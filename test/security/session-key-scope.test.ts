import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { expectErrorShape, type Protocol } from '../gateway/hostile-input/protocol-shapes.js';
import { BODY_ENDPOINTS } from '../gateway/hostile-input/hostile-endpoints.js';

const ADMIN_TOKEN = 'admin-token-for-security-tests-42';

let setup: GatewayWithSim;
let keyA: string;
let keyB: string;
beforeAll(async () => {
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } }, { adminToken: ADMIN_TOKEN });
  keyA = (await setup.gateway.createSession({ id: 'session-a', groupId: 'g' })).apiKey;
  keyB = (await setup.gateway.createSession({ id: 'session-b', groupId: 'g' })).apiKey;
  // B has a call and a reward of its own, to see that nothing of A's reaches them
  const response = await fetch(`${setup.url}/s/session-b/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keyB}` },
    body: JSON.stringify(BODY_ENDPOINTS[0]?.valid),
  });
  expect(response.status).toBe(200);
  await setup.gateway.reward('session-b', 0.5);
});
afterAll(async () => {
  await setup.close();
});

/** What the store holds of session B. */
function sessionB(): unknown {
  const store = setup.gateway.store;
  return { rollout: store.getRollout('session-b'), calls: store.listCalls('session-b'), rewards: store.listRewards('session-b', { history: true }) };
}

async function admin(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`${setup.url}/tokentap/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, code: text.startsWith('{') ? (JSON.parse(text) as { error?: { code: string } }).error?.code : undefined };
}

describe('a session key reaches only its own session', () => {
  it("A's key cannot read, reward or end B, nor use any admin-only route; nothing of B changes", async () => {
    const before = sessionB();
    const refused: Array<[string, string, unknown?]> = [
      ['GET', '/sessions/session-b'],
      ['GET', '/sessions/session-b/rewards'],
      ['POST', '/sessions/session-b/reward', { value: 1 }],
      ['POST', '/sessions/session-b/end', { status: 'failed' }],
      ['GET', '/sessions/session-a'],
      ['GET', '/sessions/session-a/rewards'],
      ['POST', '/sessions', { id: 'minted-by-a' }],
      ['POST', '/groups', { id: 'g2', expectedSize: 1 }],
      ['GET', '/groups/g'],
      ['PUT', '/policy-version', { version: 'from-a' }],
      ['POST', '/pause', { mode: 'reject' }],
      ['GET', '/state'],
      ['GET', '/events'],
      ['GET', '/batches?format=verl&waitMs=0'],
    ];
    for (const [method, path, body] of refused) {
      expect(await admin(method, path, keyA, body), `${method} ${path}`).toEqual({ status: 403, code: 'TT_FORBIDDEN' });
    }
    expect(sessionB()).toEqual(before);
    expect(setup.gateway.store.getRollout('minted-by-a')).toBeNull();
  });

  it("A's key cannot post model calls into B, by path or by header, on any front door", async () => {
    const before = sessionB();
    for (const endpoint of BODY_ENDPOINTS.filter((candidate) => candidate.protocol !== 'admin' && candidate.name !== 'count_tokens')) {
      for (const [how, path, headers] of [
        ['path, Bearer', endpoint.path.replace('/s/hostile/', '/s/session-b/'), { authorization: `Bearer ${keyA}` }],
        ['path, x-api-key', endpoint.path.replace('/s/hostile/', '/s/session-b/'), { 'x-api-key': keyA }],
        ['x-tokentap-session', endpoint.path.replace('/s/hostile', ''), { authorization: `Bearer ${keyA}`, 'x-tokentap-session': 'session-b' }],
      ] as const) {
        const response = await fetch(`${setup.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(endpoint.valid),
        });
        const text = await response.text();
        expect(response.status, `${endpoint.name} via ${how}: ${text}`).toBe(403);
        expectErrorShape(endpoint.protocol as Protocol, text, endpoint.name);
      }
    }
    expect(sessionB()).toEqual(before);
  });

  it('a call without a key cannot post into a session that was handed one, by path or by header, on any front door', async () => {
    const before = sessionB();
    for (const endpoint of BODY_ENDPOINTS.filter((candidate) => candidate.protocol !== 'admin' && candidate.name !== 'count_tokens')) {
      for (const [how, path, headers] of [
        ['path', endpoint.path.replace('/s/hostile/', '/s/session-b/'), {}],
        ['path, a harness API key', endpoint.path.replace('/s/hostile/', '/s/session-b/'), { authorization: 'Bearer sk-harness-key' }],
        ['x-tokentap-session', endpoint.path.replace('/s/hostile', ''), { 'x-tokentap-session': 'session-b' }],
      ] as const) {
        const response = await fetch(`${setup.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(endpoint.valid),
        });
        const text = await response.text();
        expect(response.status, `${endpoint.name} via ${how}: ${text}`).toBe(401);
        expectErrorShape(endpoint.protocol as Protocol, text, endpoint.name);
      }
    }
    expect(sessionB()).toEqual(before);
  });

  it("a harness session header naming B does not move A's key there: the call lands in A", async () => {
    const response = await fetch(`${setup.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keyA}`, 'x-claude-code-session-id': 'session-b' },
      body: JSON.stringify(BODY_ENDPOINTS[0]?.valid),
    });
    expect(response.status).toBe(200);
    expect(setup.gateway.store.listCalls('session-a')).toHaveLength(1);
    expect(setup.gateway.store.listCalls('session-b')).toHaveLength(1);
  });

  it("A's key does reward and end A", async () => {
    expect((await admin('POST', '/sessions/session-a/reward', keyA, { value: 1 })).status).toBe(201);
    expect((await admin('POST', '/sessions/session-a/end', keyA, { status: 'completed' })).status).toBe(200);
    expect(setup.gateway.store.getRollout('session-a')?.status).toBe('completed');
    expect(setup.gateway.store.getRollout('session-b')?.status).toBe('open');
  });

  it('a key that was never issued is 401 on the rollout API and on model calls', async () => {
    const forged = `tt-${'A'.repeat(43)}`;
    expect(await admin('POST', '/sessions/session-b/reward', forged, { value: 1 })).toEqual({ status: 401, code: 'TT_UNAUTHORIZED' });
    const response = await fetch(`${setup.url}/s/session-b/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${forged}` },
      body: JSON.stringify(BODY_ENDPOINTS[0]?.valid),
    });
    expect(response.status).toBe(401);
    expect(setup.gateway.store.listCalls('session-b')).toHaveLength(1);
  });
});
