import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { anyJson, fuzzPayload, mostly } from '../../helpers/fuzz-arbitraries.js';
import { isPoisonedJson } from '../../helpers/poisoned-json.js';
import { expectErrorShape } from './protocol-shapes.js';
import { storeFingerprint } from './store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-hostile-tests-0123';

let setup: GatewayWithSim;
const keys: Record<string, string> = {};
beforeAll(async () => {
  setup = await startGatewayWithSim(
    { script: { replies: [{ times: 'forever', content: 'fine' }] } },
    { adminToken: ADMIN_TOKEN, sessionIdleTimeoutMs: 0 },
  );
  for (const id of ['rollout-a', 'rollout-b']) keys[id] = (await setup.gateway.createSession({ id, groupId: 'group-1' })).apiKey;
  await setup.gateway.declareGroup('group-1', { expectedSize: 2 });
  // a recorded call in rollout-a, so a callId in a reward can name a real call
  const response = await fetch(`${setup.url}/s/rollout-a/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keys['rollout-a']}` },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  });
  expect(response.status).toBe(200);
});
afterAll(async () => {
  await setup.close();
});

/** Who knocks: the admin, nobody, near misses of the admin token, session A's key, B's key, an unknown key. */
type Caller = 'admin' | 'none' | 'wrong' | 'admin-prefix' | 'admin-plus-one' | 'key-a' | 'key-b' | 'unknown-key';
const callers: Caller[] = ['admin', 'none', 'wrong', 'admin-prefix', 'admin-plus-one', 'key-a', 'key-b', 'unknown-key'];

function credentialOf(caller: Caller, viaApiKey: boolean): Record<string, string> {
  const value = {
    admin: ADMIN_TOKEN,
    none: undefined,
    wrong: 'x'.repeat(ADMIN_TOKEN.length),
    'admin-prefix': ADMIN_TOKEN.slice(0, -1),
    'admin-plus-one': `${ADMIN_TOKEN}0`,
    'key-a': keys['rollout-a'],
    'key-b': keys['rollout-b'],
    'unknown-key': 'tt-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  }[caller];
  if (value === undefined) return {};
  return viaApiKey ? { 'x-api-key': value } : { authorization: `Bearer ${value}` };
}

const sessionId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('rollout-a', 'rollout-b', 'missing-session', 'default') },
  { weight: 1, arbitrary: fc.constantFrom('..', '%2e%2e', 'a%2Fb', '%00', '', 'x'.repeat(129)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
);
const groupId = fc.oneof(fc.constantFrom('group-1', 'group-2', 'missing-group'), fc.string({ maxLength: 12 }).map(encodeURIComponent));
/** never a long wait: every long poll is told 0, a few ms, or something invalid */
const waitMs = fc.constantFrom('0', '1', '5', '-1', 'abc', '70000', '1e3', '');
/** any double (±1.7e308 included, so a few components sum to Infinity: issue 12), integers, and the reward bound's edge */
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(1.7e308, -1.7e308, 1e30, -1e30, 6e29));

const sessionBody = fc.record(
  {
    id: mostly(fc.oneof(fc.uuid(), fc.constantFrom('rollout-a', 'fresh-1', 'has space', '..'))),
    groupId: mostly(fc.constantFrom('group-1', 'group-2')),
    task: anyJson,
    tags: mostly(fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 3 })),
    split: mostly(fc.constantFrom('train', 'val', 'test')),
    sampling: mostly(
      fc.record(
        { temperature: mostly(fc.double({ min: 0, max: 2, noNaN: true })), max_tokens: mostly(fc.integer({ min: 1, max: 64 })) },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const rewardBody = fc.record(
  {
    value: mostly(number),
    components: mostly(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), number, { maxKeys: 3 })),
    callId: mostly(fc.uuid()),
  },
  { requiredKeys: [] },
);
const endBody = fc.record({ status: mostly(fc.constantFrom('completed', 'truncated', 'failed', 'aborted', 'bogus')) }, { requiredKeys: [] });
const groupBody = fc.record(
  {
    id: mostly(fc.constantFrom('group-1', 'group-2', 'group-3')),
    expectedSize: mostly(fc.integer({ min: -1, max: 4 })),
    metadata: mostly(fc.dictionary(fc.string({ maxLength: 5 }), anyJson, { maxKeys: 2 })),
  },
  { requiredKeys: [] },
);
const versionBody = fc.record({ version: mostly(fc.string({ maxLength: 20 })) }, { requiredKeys: [] });
// never `hold` with drain on a long timeout: no call is in flight here, so drain answers at once anyway
const pauseBody = fc.record(
  {
    mode: mostly(fc.constantFrom('hold', 'reject')),
    retryAfterSeconds: mostly(fc.integer({ min: -1, max: 4000 })),
    drain: mostly(fc.boolean()),
    drainTimeoutMs: mostly(fc.integer({ min: 0, max: 50 })),
  },
  { requiredKeys: [] },
);

interface AdminRequest {
  method: string;
  path: string;
  body?: string;
  /** the session a session key may act on, for reward and end */
  ownSession?: string;
}

const request: fc.Arbitrary<AdminRequest> = fc.oneof(
  fuzzPayload(sessionBody).map((body) => ({ method: 'POST', path: '/sessions', body })),
  sessionId.map((id) => ({ method: 'GET', path: `/sessions/${id}` })),
  fc.tuple(sessionId, fuzzPayload(endBody)).map(([id, body]) => ({ method: 'POST', path: `/sessions/${id}/end`, body, ownSession: id })),
  fc.tuple(sessionId, fuzzPayload(rewardBody)).map(([id, body]) => ({ method: 'POST', path: `/sessions/${id}/reward`, body, ownSession: id })),
  sessionId.map((id) => ({ method: 'GET', path: `/sessions/${id}/rewards` })),
  fuzzPayload(groupBody).map((body) => ({ method: 'POST', path: '/groups', body })),
  fc.tuple(groupId, waitMs).map(([id, wait]) => ({ method: 'GET', path: `/groups/${id}?waitMs=${wait}` })),
  fuzzPayload(versionBody).map((body) => ({ method: 'PUT', path: '/policy-version', body })),
  fc.constant({ method: 'GET', path: '/policy-version' }),
  fuzzPayload(pauseBody).map((body) => ({ method: 'POST', path: '/pause', body })),
  fc.constant({ method: 'POST', path: '/resume' }),
  fc.constant({ method: 'GET', path: '/state' }),
  fc.constant({ method: 'GET', path: '/events' }),
  fc
    .tuple(
      fc.constantFrom('verl', 'generic', 'bogus', ''),
      waitMs,
      fc.constantFrom('', '&minGroups=0', '&split=nope', '&sessionIds=a', '&leaseMs=1', '&unknown=1'),
    )
    .map(([format, wait, extra]) => ({ method: 'GET', path: `/batches?format=${format}&waitMs=${wait === '' ? '0' : wait}${extra}` })),
  fc
    .tuple(fc.oneof(fc.uuid(), fc.constantFrom('..', 'a%2Fb')), fc.constantFrom('ack', 'release'))
    .map(([id, action]) => ({ method: 'POST', path: `/batches/${id}/${action}` })),
  fc
    .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), fc.string({ maxLength: 16 }).map(encodeURIComponent))
    .map(([method, path]) => ({ method, path: `/${path}` })),
);

/** Sends one request; an event stream is only opened (status and headers) and then closed. */
async function send(adminRequest: AdminRequest, caller: Caller, viaApiKey: boolean): Promise<{ status: number; text: string; contentType: string }> {
  const controller = new AbortController();
  const response = await fetch(`${setup.url}/tokentap/v1${adminRequest.path}`, {
    method: adminRequest.method,
    headers: { ...credentialOf(caller, viaApiKey), ...(adminRequest.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(adminRequest.body === undefined ? {} : { body: adminRequest.body }),
    signal: controller.signal,
  });
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    controller.abort();
    return { status: response.status, text: '', contentType };
  }
  return { status: response.status, text: await response.text(), contentType };
}

describe('the rollout API under random requests from every kind of caller', () => {
  it('never answers 5xx; every error is {"error":{"code","message"}} and changes nothing; only the admin, or a key on its own session, succeeds', async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom(...callers), fc.boolean(), async (adminRequest, caller, viaApiKey) => {
        const before = storeFingerprint(setup.gateway.store);
        const { status, text, contentType } = await send(adminRequest, caller, viaApiKey);
        const label = `${adminRequest.method} ${adminRequest.path} as ${caller}: ${status} ${text.slice(0, 200)}`;
        seen.set(`${caller} ${Math.floor(status / 100)}xx`, (seen.get(`${caller} ${Math.floor(status / 100)}xx`) ?? 0) + 1);
        expect(status < 500, label).toBe(true);
        // a lone surrogate or a number past Number.MAX_VALUE in the body (fuzzPayload makes them): refused (issue 12)
        if (adminRequest.body !== undefined && isPoisonedJson(adminRequest.body)) expect(status >= 400, label).toBe(true);
        if (status >= 400) {
          expectErrorShape('admin', text, label);
          expect(storeFingerprint(setup.gateway.store), label).toBe(before);
          return;
        }
        if (contentType.startsWith('text/event-stream')) expect(caller, label).toBe('admin');
        const ownKey =
          (caller === 'key-a' && adminRequest.ownSession === 'rollout-a') || (caller === 'key-b' && adminRequest.ownSession === 'rollout-b');
        if (caller !== 'admin' && !ownKey) {
          // a non-admin success is only ever the public OpenAPI document
          expect(adminRequest.path, label).toBe('/openapi.json');
        }
      }),
      { numRuns: 300 },
    );
    await fetch(`${setup.url}/tokentap/v1/resume`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    // the run exercised both sides: successes as the admin, refusals of everyone else
    expect(seen.get('admin 2xx') ?? 0).toBeGreaterThan(0);
    // whatever was accepted, no stored reward is Infinity or past the reward bound (docs/rollouts.md)
    for (const id of ['rollout-a', 'rollout-b']) {
      for (const reward of setup.gateway.store.listRewards(id, { history: true })) {
        for (const value of [reward.value, ...Object.values(reward.components ?? {})])
          expect(Math.abs(value) <= 1e30, JSON.stringify(reward)).toBe(true);
      }
    }
    expect(seen.get('none 4xx') ?? 0).toBeGreaterThan(0);
    expect(seen.get('key-a 4xx') ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it('still serves a model call and /healthz afterwards', async () => {
    const response = await fetch(`${setup.url}/s/after-fuzz/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
    });
    expect(response.status, await response.text()).toBe(200);
    expect((await fetch(`${setup.url}/healthz`)).status).toBe(200);
  });
});
