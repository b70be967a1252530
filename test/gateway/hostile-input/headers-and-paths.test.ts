import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { createSimBackend, type SimBackend } from '../../../sim/index.js';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { BODY_ENDPOINTS, methodOf, type BodyEndpoint } from './hostile-endpoints.js';
import { expectErrorShape } from './protocol-shapes.js';
import { rawRequest } from './raw-http.js';
import { storeFingerprint } from './store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-hostile-tests-0123';
const FRONT_DOORS = BODY_ENDPOINTS.filter((endpoint) => endpoint.protocol !== 'admin');
/** What the gateway itself sends the backend; nothing a harness sent may be among the rest. */
const GATEWAY_HEADERS = new Set(['host', 'connection', 'content-type', 'content-length', 'accept', 'authorization', 'transfer-encoding']);

let sim: SimBackend;
let gateway: Gateway;
let url: string;
const seenByBackend: IncomingHttpHeaders[] = [];
const temp = makeTempDir();
beforeAll(async () => {
  sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ times: 'forever', content: 'fine' }] } });
  sim.app.addHook('onRequest', async (request) => {
    seenByBackend.push(request.headers);
  });
  const simUrl = await sim.listen();
  gateway = createGateway({
    backendUrl: simUrl,
    backendKey: 'backend-key-0123456789',
    db: temp.file('tokentap.db'),
    port: 0,
    logLevel: 'silent',
    adminToken: ADMIN_TOKEN,
  });
  url = await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await sim.close();
  temp.remove();
});

function withSession(endpoint: BodyEndpoint, encodedSession: string): string {
  return endpoint.path.replace('/s/hostile/', `/s/${encodedSession}/`);
}

describe('session ids that try to leave their place are refused in the protocol shape', () => {
  // count_tokens records nothing and reads no session: it is checked below for storing nothing
  const recordingDoors = FRONT_DOORS.filter((endpoint) => endpoint.name !== 'count_tokens');
  const badPathSessions = [
    'a%2Fb',
    '..%2F..%2Fetc%2Fpasswd',
    '%2F',
    'a%00b',
    'a%0d%0ab',
    'x'.repeat(129),
    'x'.repeat(300),
    '%E2%80%AE',
    'a%20b',
    '%2e%2e%2f',
    '%E0%A4%A',
    '%',
  ];
  for (const endpoint of recordingDoors) {
    it(`${endpoint.name}: a bad session in the path or in x-tokentap-session is 400 TT_INVALID_SESSION, nothing stored`, async () => {
      const before = storeFingerprint(gateway.store);
      for (const session of badPathSessions) {
        const response = await fetch(`${url}${withSession(endpoint, session)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(endpoint.valid),
        });
        const text = await response.text();
        expect(response.status, `${session}: ${text.slice(0, 200)}`).toBe(400);
        const body = expectErrorShape(endpoint.protocol, text, session);
        // too long for the router, or not decodable: refused before the session is read, in the same shape
        const beforeRouting = session.length > 256 || session.startsWith('%E0') || session === '%';
        if (endpoint.protocol === 'openai')
          expect(body).toMatchObject({ error: { code: beforeRouting ? 'TT_INVALID_REQUEST' : 'TT_INVALID_SESSION' } });
        else expect(body).toMatchObject({ error: { message: beforeRouting ? expect.any(String) : expect.stringMatching(/Invalid session id/) } });
      }
      for (const header of ['../../etc/passwd', 'a/b', '%2F', 'a b']) {
        const response = await fetch(`${url}${endpoint.path.replace('/s/hostile', '')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tokentap-session': header },
          body: JSON.stringify(endpoint.valid),
        });
        expect(response.status, header).toBe(400);
        expectErrorShape(endpoint.protocol, await response.text(), header);
      }
      expect(storeFingerprint(gateway.store)).toBe(before);
    });
  }

  it('count_tokens with a bad session in the path stores nothing', async () => {
    const endpoint = FRONT_DOORS.find((candidate) => candidate.name === 'count_tokens') as BodyEndpoint;
    const before = storeFingerprint(gateway.store);
    for (const session of ['a%2Fb', '..%2F..%2Fetc', 'x'.repeat(300)]) {
      const response = await fetch(`${url}${withSession(endpoint, session)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(endpoint.valid),
      });
      const text = await response.text();
      expect([200, 400], text).toContain(response.status);
      if (response.status === 400) expectErrorShape('anthropic', text, session);
    }
    expect(storeFingerprint(gateway.store)).toBe(before);
  });

  it('takes a session id of the full 128 characters in the path', async () => {
    const id = `${'a'.repeat(120)}.b_c:d-e`;
    expect(id).toHaveLength(128);
    const response = await fetch(`${url}/s/${id}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(FRONT_DOORS[0]?.valid),
    });
    expect(response.status, await response.text()).toBe(200);
    expect(gateway.store.listCalls(id)).toHaveLength(1);
  });

  it('a harness session header that does not fit falls back to the default session instead of naming one', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-claude-code-session-id': '../../etc/passwd', 'session-id': 'a/b' },
      body: JSON.stringify(FRONT_DOORS[0]?.valid),
    });
    expect(response.status).toBe(200);
    expect(gateway.store.listSessions().map((session) => session.id)).not.toContain('../../etc/passwd');
    expect(gateway.store.listCalls('default').at(-1)?.metadata).toMatchObject({ sessionSource: 'default' });
  });

  it('the rollout API refuses traversal in its path ids with 400 in its own shape', async () => {
    const before = storeFingerprint(gateway.store);
    for (const [method, path] of [
      ['GET', '/sessions/..%2F..%2Fetc'],
      ['POST', '/sessions/a%2Fb/reward'],
      ['POST', '/sessions/a%00/end'],
      ['GET', '/groups/..%2Fx'],
      ['GET', '/sessions/' + 'x'.repeat(129) + '/rewards'],
      ['GET', '/sessions/' + 'x'.repeat(300)],
      ['GET', '/groups/%E0%A4%A'],
    ] as const) {
      const response = await fetch(`${url}/tokentap/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify(path.endsWith('reward') ? { value: 1 } : {}) } : {}),
      });
      const text = await response.text();
      expect(response.status, `${path}: ${text}`).toBe(400);
      expect(expectErrorShape('admin', text, path)).toMatchObject({ error: { code: 'TT_INVALID_REQUEST' } });
    }
    expect(storeFingerprint(gateway.store)).toBe(before);
  });
});

describe('header injection', () => {
  const injected = [
    ['a CR inside a header value', 'X-Tokentap-Session: a\rInjected: yes\r\n'],
    ['a LF inside a header value', 'User-Agent: a\nInjected: yes\r\n'],
    ['a NUL inside a header value', 'User-Agent: a\u0000b\r\n'],
    ['a space before the colon', 'X-Tokentap-Session : other\r\n'],
  ] as const;
  for (const [name, line] of injected) {
    it(`${name}: refused by the HTTP parser with 400 in a shape every client reads; nothing stored, the gateway serves on`, async () => {
      const before = storeFingerprint(gateway.store);
      const body = JSON.stringify(FRONT_DOORS[0]?.valid);
      const answer = await rawRequest(
        url,
        `POST /s/crlf/v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${line}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      expect(answer.status, answer.head).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.any(String), code: 'TT_INVALID_REQUEST' },
      });
      expect(storeFingerprint(gateway.store)).toBe(before);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    });
  }

  it('no header a harness sends reaches the backend, on any front door', async () => {
    const harnessHeaders = {
      'content-type': 'application/json',
      authorization: 'Bearer sk-harness-secret-xyz',
      'x-api-key': 'sk-ant-harness-secret-xyz',
      cookie: 'session=secret',
      'x-forwarded-for': '10.6.6.6',
      'x-forwarded-host': 'evil.example',
      forwarded: 'for=10.6.6.6',
      'x-real-ip': '10.6.6.6',
      'proxy-authorization': 'Basic c2VjcmV0',
      'x-claude-code-session-id': 'cc-1',
      'anthropic-beta': 'x',
      'user-agent': 'harness/1.0',
      'x-custom': 'value',
    };
    for (const endpoint of FRONT_DOORS) {
      seenByBackend.length = 0;
      const response = await fetch(`${url}${endpoint.path}`, {
        method: methodOf(endpoint),
        headers: harnessHeaders,
        body: JSON.stringify(endpoint.valid),
      });
      expect(response.status, `${endpoint.name}: ${await response.text()}`).toBe(200);
      expect(seenByBackend.length, endpoint.name).toBeGreaterThan(0);
      for (const headers of seenByBackend) {
        expect(
          Object.keys(headers).filter((name) => !GATEWAY_HEADERS.has(name)),
          endpoint.name,
        ).toEqual([]);
        expect(headers.authorization, endpoint.name).toBe('Bearer backend-key-0123456789');
      }
    }
  });
});
