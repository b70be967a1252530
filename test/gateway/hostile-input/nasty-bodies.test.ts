import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { BODY_ENDPOINTS, MODEL, methodOf, type BodyEndpoint } from './hostile-endpoints.js';
import { expectErrorShape } from './protocol-shapes.js';
import { storeFingerprint } from './store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-hostile-tests-0123';

let setup: GatewayWithSim;
let sessionId: string;
beforeAll(async () => {
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } }, { adminToken: ADMIN_TOKEN });
  sessionId = (await setup.gateway.createSession({ id: 'hostile-target' })).id;
  // one recorded call, so "nothing changed" compares a store that holds something
  await post('/s/hostile/v1/chat/completions', JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 }));
});
afterAll(async () => {
  await setup.close();
});

async function post(path: string, body: string | Buffer, method = 'POST'): Promise<{ status: number; text: string }> {
  const response = await fetch(`${setup.url}${path.replace('SESSION', sessionId)}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** `levels` arrays nested in one another: `[[[]]]` is 3. */
function nestedArrays(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** The endpoint's valid body with `field` set to raw JSON text (so it can hold what JSON.stringify cannot make). */
function validWith(endpoint: BodyEndpoint, field: string, rawValue: string): string {
  return JSON.stringify(endpoint.valid).replace(/}$/, `,${JSON.stringify(field)}:${rawValue}}`);
}

/** The nasty cases: raw bytes that reach the JSON parser, each answerable only by a 400. */
function nastyBodies(endpoint: BodyEndpoint): Array<[string, string | Buffer]> {
  const valid = JSON.stringify(endpoint.valid);
  return [
    [
      'invalid UTF-8 inside a string',
      Buffer.concat([Buffer.from(valid.replace(/}$/, ',"note":"')), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')]),
    ],
    [
      'a lone UTF-16 surrogate encoded as bytes (CESU)',
      Buffer.concat([Buffer.from(valid.replace(/}$/, ',"note":"')), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    ],
    ['100k levels of nesting at the top', nestedArrays(100_000)],
    ['100k levels of nesting inside a valid body', validWith(endpoint, 'metadata', nestedArrays(100_000))],
    ['one level more than maxJsonDepth (512)', validWith(endpoint, 'metadata', nestedArrays(512))],
    ['a NaN literal', valid.replace(/}$/, ',"temperature":NaN}')],
    ['an Infinity literal', valid.replace(/}$/, ',"temperature":Infinity}')],
    ['a -Infinity literal', valid.replace(/}$/, ',"temperature":-Infinity}')],
    ['a __proto__ key at the top', valid.replace(/}$/, ',"__proto__":{"polluted":"yes"}}')],
    ['a __proto__ key deep inside', validWith(endpoint, 'metadata', '{"a":[{"__proto__":{"polluted":"yes"}}]}')],
    ['constructor.prototype', validWith(endpoint, 'metadata', '{"constructor":{"prototype":{"polluted":"yes"}}}')],
    ['an empty body', ''],
    ['a truncated body', valid.slice(0, -3)],
    ['a byte-order mark before the JSON', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)])],
    ...poisonedBodies(endpoint).map(([caseName, body]): [string, string] => [caseName, body]),
  ];
}

/**
 * Valid JSON that parses to what no route may take (issue 12): a lone UTF-16 surrogate escape (stored, it put bytes
 * that are not UTF-8 into SQLite) and numbers past Number.MAX_VALUE (JSON.parse makes them Infinity, forwarded as
 * null). Each must be refused by the parser, so the message names the problem on every route.
 */
function poisonedBodies(endpoint: BodyEndpoint): Array<[string, string, RegExp]> {
  const valid = JSON.stringify(endpoint.valid);
  const surrogate = /lone UTF-16 surrogate/;
  const tooLarge = /number too large/;
  return [
    ['a lone low surrogate in the model name', valid.replace(/}$/, ',"model":"claude-\\udc00-sonnet"}'), surrogate],
    ['a lone high surrogate at the end of a string', validWith(endpoint, 'metadata', '{"note":"abc\\uD800"}'), surrogate],
    ['a reversed surrogate pair', validWith(endpoint, 'metadata', '["\\udc00\\ud800"]'), surrogate],
    ['a lone surrogate in a key', validWith(endpoint, 'metadata', '{"a":[{"k\\udfff":1}]}'), surrogate],
    ['max_tokens 1e400', valid.replace(/}$/, ',"max_tokens":1e400}'), tooLarge],
    ['max_tokens -1e400', valid.replace(/}$/, ',"max_tokens":-1e400}'), tooLarge],
    ['1E+309 deep in an array', validWith(endpoint, 'metadata', '[[0, 1E+309]]'), tooLarge],
    ['an integer of 400 digits', validWith(endpoint, 'metadata', `{"n":${'9'.repeat(400)}}`), tooLarge],
  ];
}

describe('every JSON route refuses nasty bodies in its own protocol shape, changes nothing, and keeps serving', () => {
  for (const endpoint of BODY_ENDPOINTS) {
    it(`${endpoint.name}: 400, nothing stored, no prototype polluted`, async () => {
      for (const [caseName, body] of nastyBodies(endpoint)) {
        const before = storeFingerprint(setup.gateway.store);
        const { status, text } = await post(endpoint.path, body, methodOf(endpoint));
        expect(status, `${caseName}: ${text.slice(0, 200)}`).toBe(400);
        expectErrorShape(endpoint.protocol, text, caseName);
        expect(storeFingerprint(setup.gateway.store), caseName).toBe(before);
        expect(({} as Record<string, unknown>).polluted, caseName).toBeUndefined();
        expect(Object.prototype, caseName).not.toHaveProperty('polluted');
      }
    });
  }

  it('names the problem: not UTF-8, too deep, a prototype key', async () => {
    const chat = BODY_ENDPOINTS[0] as BodyEndpoint;
    const messages = await Promise.all(
      nastyBodies(chat)
        .slice(0, 9)
        .map(async ([, body]) => (JSON.parse((await post(chat.path, body)).text) as { error: { message: string } }).error.message),
    );
    expect(messages[0]).toMatch(/not valid UTF-8/);
    expect(messages[2]).toMatch(/nested deeper than 512/);
    expect(messages[4]).toMatch(/nested deeper than 512/);
    expect(messages[5]).toMatch(/not valid JSON/);
    expect(messages[8]).toMatch(/__proto__/);
  });

  it('names a lone surrogate and a number past Number.MAX_VALUE, on every route, in its own shape', async () => {
    for (const endpoint of BODY_ENDPOINTS) {
      for (const [caseName, body, message] of poisonedBodies(endpoint)) {
        const { status, text } = await post(endpoint.path, body, methodOf(endpoint));
        const label = `${endpoint.name}, ${caseName}: ${text.slice(0, 200)}`;
        expect(status, label).toBe(400);
        const error = (expectErrorShape(endpoint.protocol, text, label) as { error: { message: string } }).error;
        expect(error.message, label).toMatch(message);
      }
    }
  });

  it('takes what only looks alike: an escaped surrogate pair, 1e308, 1e-400, and records the pair as sent', async () => {
    const chat = BODY_ENDPOINTS[0] as BodyEndpoint;
    const { status, text } = await post(chat.path, validWith(chat, 'metadata', '{"emoji":"\\ud83d\\ude00","big":1e308,"tiny":1e-400}'));
    expect(status, text.slice(0, 300)).toBe(200);
    const calls = setup.gateway.store.listCalls('hostile');
    const stored = setup.gateway.store.getCallBodies(calls[calls.length - 1]?.id ?? '')?.requestBody as { metadata: unknown };
    expect(stored.metadata).toEqual({ emoji: '\u{1F600}', big: 1e308, tiny: 0 });
  });

  it('takes a body nested exactly maxJsonDepth (512) deep through a whole recorded call', async () => {
    const chat = BODY_ENDPOINTS[0] as BodyEndpoint;
    const { status, text } = await post(chat.path, validWith(chat, 'metadata', nestedArrays(511)));
    expect(status, text.slice(0, 300)).toBe(200);
    const calls = setup.gateway.store.listCalls('hostile');
    const last = calls[calls.length - 1];
    expect(last?.status).toBe('ok');
    let depth = 0;
    for (
      let value = (setup.gateway.store.getCallBodies(last?.id ?? '')?.requestBody as { metadata: unknown }).metadata;
      Array.isArray(value);
      value = value[0]
    )
      depth += 1;
    expect(depth).toBe(511);
  });

  it('answers a normal call on every front door afterwards', async () => {
    for (const endpoint of BODY_ENDPOINTS.filter((candidate) => candidate.protocol !== 'admin')) {
      const { status, text } = await post(endpoint.path, JSON.stringify(endpoint.valid));
      expect(status, `${endpoint.name}: ${text.slice(0, 200)}`).toBe(200);
    }
    expect((await fetch(`${setup.url}/healthz`)).status).toBe(200);
  });
});
