import { afterEach, describe, expect, it } from 'vitest';
import type { SimScript } from '../../sim/index.js';
import type { GatewayOptions } from '../../gateway/create-gateway.js';
import { SseDecoder } from '../../core/sse/sse-decoder.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { closedPort } from '../helpers/closed-port.js';

/**
 * Every backend fault reaches the harness as its own protocol's error, for each front-door family, is recorded
 * with its status, never hangs (each wait has a timeout), and leaves the gateway serving the next call.
 */
let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const REPLY = 'one two three four five six seven eight nine ten eleven twelve';

interface Family {
  frontDoor: string;
  path: string;
  body: (stream: boolean) => Record<string, unknown>;
  /** the error body's shape for an answer with this status */
  expectErrorBody: (body: unknown, status: number) => void;
  /** the stream's end after a mid-stream failure with this tokentap code */
  expectStreamError: (text: string, code: string) => void;
  okText: (body: unknown) => string;
}

const ANTHROPIC_TYPES: Record<number, string> = { 429: 'rate_limit_error', 500: 'api_error', 502: 'api_error', 504: 'timeout_error' };

function sseEvents(text: string): Array<{ event: string | undefined; data: string }> {
  const decoder = new SseDecoder();
  return [...decoder.push(new TextEncoder().encode(text)), ...decoder.flush()];
}

const FAMILIES: Family[] = [
  {
    frontDoor: 'openai-chat',
    path: '/chat/completions',
    body: (stream) => ({ model: 'Qwen/Qwen3-8B', stream, messages: [{ role: 'user', content: 'hello' }] }),
    expectErrorBody: (body) => expect(body).toMatchObject({ error: { message: expect.any(String), type: expect.any(String) } }),
    expectStreamError: (text, code) => {
      const data = sseEvents(text).map((event) => event.data);
      expect(data).not.toContain('[DONE]');
      expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { code } });
    },
    okText: (body) => (body as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content,
  },
  {
    frontDoor: 'openai-responses',
    path: '/responses',
    body: (stream) => ({ model: 'Qwen/Qwen3-8B', stream, input: 'hello' }),
    expectErrorBody: (body) => expect(body).toMatchObject({ error: { message: expect.any(String), type: expect.any(String) } }),
    expectStreamError: (text, code) => {
      const events = sseEvents(text).map((event) => JSON.parse(event.data) as { type: string; code?: string });
      expect(events.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
      expect(events.at(-2)).toMatchObject({ code });
    },
    okText: (body) => JSON.stringify(body),
  },
  {
    frontDoor: 'anthropic-messages',
    path: '/messages',
    body: (stream) => ({ model: 'claude-x', max_tokens: 50, stream, messages: [{ role: 'user', content: 'hello' }] }),
    expectErrorBody: (body, status) => expect(body).toEqual({ type: 'error', error: { type: ANTHROPIC_TYPES[status], message: expect.any(String) } }),
    expectStreamError: (text) => {
      const events = sseEvents(text);
      expect(events.map((event) => event.event)).not.toContain('message_stop');
      expect(events.at(-1)).toMatchObject({ event: 'error' });
      expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
    },
    okText: (body) => JSON.stringify(body),
  },
];

async function start(script: SimScript, options: GatewayOptions = {}): Promise<GatewayWithSim> {
  setup = await startGatewayWithSim({ script }, { backendRetries: 0, backendHeadersTimeoutMs: 500, backendBodyTimeoutMs: 500, ...options });
  return setup;
}

function post(family: Family, session: string, stream: boolean): Promise<Response> {
  return fetch(`${setup!.openaiBase(session)}${family.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(family.body(stream)),
  });
}

async function expectNextCallServed(family: Family, session: string): Promise<void> {
  const next = await post(family, session, false);
  expect(next.status).toBe(200);
  expect(family.okText(await next.json())).toContain('twelve');
  expect(setup!.gateway.store.listCalls(session).at(-1)).toMatchObject({ status: 'ok', frontDoor: family.frontDoor });
}

// [fault, script entry (or a backend address that fails itself), status the harness gets, code recorded]
const BEFORE_THE_ANSWER: Array<[string, SimScript['replies'][number] | 'dns' | 'refused', number, string]> = [
  ['DNS failure', 'dns', 502, 'TT_BACKEND_UNREACHABLE'],
  ['connection refused', 'refused', 502, 'TT_BACKEND_UNREACHABLE'],
  ['reset before the headers', { fault: { kind: 'refuse' } }, 502, 'TT_BACKEND_UNREACHABLE'],
  ['headers that never come', { fault: { kind: 'stall-headers' } }, 504, 'TT_BACKEND_TIMEOUT'],
  ['a body that falls silent', { content: REPLY, fault: { kind: 'slow-body', delayMs: 10_000, chunkBytes: 8 } }, 504, 'TT_BACKEND_TIMEOUT'],
  ['a body that is not JSON', { content: REPLY, fault: { kind: 'malformed-json' } }, 502, 'TT_BACKEND_BAD_RESPONSE'],
  ['500', { fault: { kind: 'http-error', status: 500, message: 'engine dead' } }, 500, 'TT_BACKEND_ERROR'],
  ['429 with Retry-After', { fault: { kind: 'http-error', status: 429, headers: { 'retry-after': '3' } } }, 429, 'TT_BACKEND_ERROR'],
];

const MID_STREAM: Array<[string, SimScript['replies'][number], string]> = [
  ['a reset mid-stream', { content: REPLY, fault: { kind: 'cut-stream', afterTokens: 3 } }, 'TT_BACKEND_STREAM_CUT'],
  ['malformed SSE', { content: REPLY, fault: { kind: 'malformed-sse', afterTokens: 3 } }, 'TT_BACKEND_BAD_RESPONSE'],
  ['a stream that falls silent', { content: REPLY, fault: { kind: 'slow-body', delayMs: 10_000 } }, 'TT_BACKEND_TIMEOUT'],
];

for (const family of FAMILIES) {
  describe(`${family.frontDoor}: faults before the answer`, () => {
    it.each(BEFORE_THE_ANSWER)("%s -> the protocol's error, recorded, gateway still serving", async (_name, entry, status, code) => {
      const unreachable =
        entry === 'dns' ? 'http://tokentap-no-such-host.invalid:8000' : entry === 'refused' ? `http://127.0.0.1:${await closedPort()}` : undefined;
      await start(
        { replies: typeof entry === 'string' ? [] : [entry, { content: REPLY }] },
        unreachable === undefined ? {} : { backendUrl: unreachable },
      );
      const response = await post(family, 'fault', false);
      expect(response.status).toBe(status);
      if (status === 429) expect(response.headers.get('retry-after')).toBe('3');
      family.expectErrorBody(await response.json(), status);
      expect(setup!.gateway.store.listCalls('fault')).toMatchObject([{ status: 'backend_error', frontDoor: family.frontDoor, error: { code } }]);
      // a backend nobody can connect to is down: the gateway's only replica, so its health says so; any other fault leaves it up
      expect((await fetch(`${setup!.url}/healthz`)).status).toBe(unreachable === undefined ? 200 : 503);
      if (unreachable === undefined) await expectNextCallServed(family, 'fault');
    });
  });

  describe(`${family.frontDoor}: faults after the stream started`, () => {
    it.each(MID_STREAM)("%s -> an error event in the protocol's form, recorded, gateway still serving", async (_name, entry, code) => {
      await start({ replies: [entry, { content: REPLY }] });
      const response = await post(family, 'cut', true);
      expect(response.status).toBe(200);
      family.expectStreamError(await response.text(), code);
      expect(setup!.gateway.store.listCalls('cut')).toMatchObject([{ status: 'backend_error', httpStatus: 200, error: { code } }]);
      await expectNextCallServed(family, 'cut');
    });
  });
}
