import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timingSafeEqual } from 'node:crypto';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { isSameSecret } from '../../gateway/rollouts/session-keys.js';
import { storeFingerprint } from '../gateway/hostile-input/store-fingerprint.js';

// the comparison must go through timingSafeEqual: wrap it so the test sees every call, and what it compared
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const ADMIN_TOKEN = 'admin-token-for-security-tests-42';

/** Every admin route, with a body that would succeed as the admin. */
const ADMIN_ROUTES: Array<[method: string, path: string, body?: unknown]> = [
  ['POST', '/sessions', { id: 'made-by-someone' }],
  ['GET', '/sessions/target'],
  ['POST', '/sessions/target/end', {}],
  ['POST', '/sessions/target/reward', { value: 1 }],
  ['GET', '/sessions/target/rewards'],
  ['POST', '/groups', { id: 'g-new', expectedSize: 1 }],
  ['GET', '/groups/g-1'],
  ['PUT', '/policy-version', { version: 'evil' }],
  ['GET', '/policy-version'],
  ['POST', '/pause', { mode: 'reject' }],
  ['POST', '/resume'],
  ['GET', '/state'],
  ['GET', '/events'],
  ['GET', '/batches?format=verl&waitMs=0'],
  ['POST', '/batches/some-batch/ack'],
  ['POST', '/batches/some-batch/release'],
];

let setup: GatewayWithSim;
beforeAll(async () => {
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } }, { adminToken: ADMIN_TOKEN });
  await setup.gateway.createSession({ id: 'target', groupId: 'g-1' });
});
afterAll(async () => {
  await setup.close();
});

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; code?: string }> {
  const controller = new AbortController();
  const response = await fetch(`${setup.url}/tokentap/v1${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: controller.signal,
  });
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    controller.abort();
    return { status: response.status };
  }
  const text = await response.text();
  return { status: response.status, ...(text.startsWith('{') ? { code: (JSON.parse(text) as { error?: { code?: string } }).error?.code } : {}) };
}

describe('the admin token guards every admin route', () => {
  const wrongCredentials: Record<string, Record<string, string>> = {
    'no credential': {},
    'an empty bearer': { authorization: 'Bearer ' },
    'the token one character short': { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
    'the token with one more character': { authorization: `Bearer ${ADMIN_TOKEN}x` },
    'the token with its last character changed': { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}3` },
    'the token in another case': { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` },
    'the token as Basic auth': { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
    'the token as a query parameter only': {},
    'a wrong x-api-key': { 'x-api-key': 'not-the-token-0123456789' },
  };
  for (const [name, headers] of Object.entries(wrongCredentials)) {
    it(`${name}: 401 TT_UNAUTHORIZED on every route, nothing changed`, async () => {
      const before = storeFingerprint(setup.gateway.store);
      for (const [method, path, body] of ADMIN_ROUTES) {
        const query = name.includes('query') ? `${path.includes('?') ? '&' : '?'}token=${ADMIN_TOKEN}` : '';
        expect(await call(method, path + query, headers, body), `${method} ${path}`).toEqual({ status: 401, code: 'TT_UNAUTHORIZED' });
      }
      expect(storeFingerprint(setup.gateway.store)).toBe(before);
      expect(setup.gateway.store.getPolicyVersion()).toBeNull();
    });
  }

  it('the token itself, as Bearer or x-api-key, is let in on every route', async () => {
    const asAdmin: Array<Record<string, string>> = [{ authorization: `Bearer ${ADMIN_TOKEN}` }, { 'x-api-key': ADMIN_TOKEN }];
    for (const headers of asAdmin) {
      for (const [method, path, body] of ADMIN_ROUTES) {
        // past the guard: a success, or the route's own answer (a second end is 409, an unknown batch 404)
        const { status, code } = await call(method, path, headers, body);
        expect([401, 403], `${method} ${path}: ${status} ${code}`).not.toContain(status);
      }
    }
    expect(setup.gateway.store.getPolicyVersion()?.version).toBe('evil');
    await call('POST', '/resume', { authorization: `Bearer ${ADMIN_TOKEN}` });
  });

  it('without an adminToken configured, even a plausible token is refused', async () => {
    const open = await startGatewayWithSim({}, {});
    try {
      const response = await fetch(`${open.url}/tokentap/v1/state`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'TT_UNAUTHORIZED', message: expect.stringMatching(/--admin-token/) } });
    } finally {
      await open.close();
    }
  });
});

describe('the admin token is compared in constant time', () => {
  it('every check compares two sha256 digests with timingSafeEqual, whatever the lengths', async () => {
    const spy = vi.mocked(timingSafeEqual);
    spy.mockClear();
    for (const token of ['short', ADMIN_TOKEN.slice(0, -1), `${ADMIN_TOKEN}${'x'.repeat(500)}`, ADMIN_TOKEN]) {
      await call('GET', '/state', { authorization: `Bearer ${token}` });
    }
    expect(spy).toHaveBeenCalledTimes(4);
    for (const [given, expected] of spy.mock.calls) {
      expect([(given as Buffer).length, (expected as Buffer).length]).toEqual([32, 32]);
    }
  });

  it('isSameSecret is exact, and never throws on different lengths', () => {
    expect(isSameSecret(ADMIN_TOKEN, ADMIN_TOKEN)).toBe(true);
    expect(isSameSecret(`${ADMIN_TOKEN} `, ADMIN_TOKEN)).toBe(false);
    expect(isSameSecret('', ADMIN_TOKEN)).toBe(false);
    expect(isSameSecret('x'.repeat(10_000), ADMIN_TOKEN)).toBe(false);
    expect(isSameSecret('é', 'e\u0301')).toBe(false);
  });
});
