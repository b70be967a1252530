import { afterEach, describe, expect, it } from 'vitest';
import Anthropic, { APIError, APIUserAbortError, RateLimitError } from '@anthropic-ai/sdk';
import { createGateway } from '../../../gateway/create-gateway.js';
import { SseDecoder } from '../../../core/sse/sse-decoder.js';
import type { SimBackendOptions, SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { closedPort } from '../../helpers/closed-port.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(script: SimScript, simOptions: SimBackendOptions = {}): Promise<GatewayWithSim> {
  setup = await startGatewayWithSim({ script, ...simOptions });
  return setup;
}

const BODY = { model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'hello there' }] };

function post(body: unknown, url = '/s/err/v1/messages'): Promise<Response> {
  return fetch(`${setup!.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function sseEvents(text: string): Array<{ event: string | undefined; data: string }> {
  const decoder = new SseDecoder();
  return [...decoder.push(new TextEncoder().encode(text)), ...decoder.flush()];
}

function onlyCall(session = 'err') {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

describe('backend errors reach Claude Code in Anthropic shape and are recorded', () => {
  const cases: Array<[status: number, type: string]> = [
    [500, 'api_error'],
    [503, 'overloaded_error'],
    [529, 'overloaded_error'],
    [401, 'authentication_error'],
  ];
  for (const [status, type] of cases) {
    it(`answers a backend ${status} as ${status} ${type} with the backend's message`, async () => {
      // forever: a 503 is retried by the gateway (backendRetries) and must still be the answer after the last attempt
      await start({ replies: [{ times: 'forever', fault: { kind: 'http-error', status, message: 'engine trouble' } }] });
      const response = await post(BODY);
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ type: 'error', error: { type, message: expect.stringContaining('engine trouble') } });
      expect(onlyCall()).toMatchObject({ status: 'backend_error', httpStatus: status, frontDoor: 'anthropic-messages' });
    });
  }

  it('passes 429 with Retry-After; the SDK raises RateLimitError', async () => {
    // a Retry-After past backendRetryAfterMaxMs (10 s) is not waited out by the gateway: the harness gets it
    const { url } = await start({
      replies: [{ times: 'forever', fault: { kind: 'http-error', status: 429, message: 'slow down', headers: { 'retry-after': '60' } } }],
    });
    const response = await post(BODY);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const client = new Anthropic({ baseURL: `${url}/s/err`, apiKey: 'x', maxRetries: 0 });
    await expect(client.messages.create({ ...BODY, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(RateLimitError);
  });

  for (const errorShape of ['nested', 'flat'] as const) {
    it(`turns a context-length error (${errorShape}) into 400 "prompt is too long", streaming or not`, async () => {
      await start({ replies: [] }, { maxModelLen: 20, errorShape });
      for (const stream of [false, true]) {
        const response = await post({ ...BODY, stream });
        expect(response.status).toBe(400);
        const body = (await response.json()) as { type: string; error: { type: string; message: string } };
        expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
        expect(body.error.message).toMatch(/^prompt is too long: input length and `max_tokens` exceed context limit: \d+ \+ 50 > 20/);
      }
    });
  }

  it('ends a stream cut mid-way with an error event (no message_stop); the SDK raises; tokens so far are kept', async () => {
    const { url } = await start({
      replies: [{ times: 'forever', content: 'one two three four five six seven eight nine ten', fault: { kind: 'cut-stream', afterTokens: 3 } }],
    });
    const response = await post({ ...BODY, stream: true });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toEqual({ type: 'error', error: { type: 'api_error', message: expect.any(String) } });
    expect(events.some((event) => event.event === 'message_stop')).toBe(false);
    const call = onlyCall();
    expect(call).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_STREAM_CUT' } });
    expect(call.completionTokenIds?.length).toBeGreaterThan(0);

    const client = new Anthropic({ baseURL: `${url}/s/err`, apiKey: 'x', maxRetries: 0 });
    await expect(client.messages.stream({ ...BODY, messages: [{ role: 'user', content: 'hi' }] }).finalMessage()).rejects.toBeInstanceOf(APIError);
  });

  it('reports an unreadable stream event as an error event', async () => {
    await start({ replies: [{ content: 'one two three four', fault: { kind: 'malformed-json', afterTokens: 1 } }] });
    const events = sseEvents(await (await post({ ...BODY, stream: true })).text());
    expect(events.at(-1)).toMatchObject({ event: 'error' });
    expect(onlyCall().error?.code).toBe('TT_BACKEND_BAD_RESPONSE');
  });
});

describe('Claude Code going away mid-stream', () => {
  it('cancels the backend request and records the call as aborted with the tokens so far', async () => {
    const { url, sim } = await start(
      { replies: [{ content: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen' }] },
      { tokensPerSecond: 40 },
    );
    const cancelled = new Promise<void>((resolve) => sim.on('cancel', () => resolve()));
    const client = new Anthropic({ baseURL: `${url}/s/gone`, apiKey: 'x', maxRetries: 0 });
    const stream = client.messages.stream({ ...BODY, messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'disabled' } });
    const ended = stream.finalMessage().catch((error: unknown) => error);
    await new Promise<void>((resolve) => stream.on('text', () => resolve()));
    stream.abort();
    expect(await ended).toBeInstanceOf(APIUserAbortError);
    await cancelled;
    await expect.poll(() => setup!.gateway.store.listCalls('gone')[0]?.status).toBe('aborted');
    const got = Array.from(onlyCall('gone').completionTokenIds ?? []);
    expect(got.length).toBeGreaterThan(0);
    expect(got).toEqual(sim.log[0]?.completionTokenIds.slice(0, got.length));
  });
});

describe('the Anthropic front door refuses bad input in Anthropic shape and records nothing', () => {
  const invalid: Array<[string, unknown]> = [
    ['malformed JSON', '{"messages": ['],
    ['missing messages', { model: 'm', max_tokens: 5 }],
    ['missing max_tokens', { model: 'm', messages: [{ role: 'user', content: 'x' }] }],
    ['max_tokens as a string', { ...BODY, max_tokens: '5' }],
    ['a message without content', { ...BODY, messages: [{ role: 'user' }] }],
    ['an unknown role', { ...BODY, messages: [{ role: 'tool', content: 'x' }] }],
    ['an unknown block type', { ...BODY, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', data: 'x' } }] }] }],
    ['a tool_use in a user turn', { ...BODY, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }] }],
    ['a custom tool without input_schema', { ...BODY, tools: [{ name: 'Bash' }] }],
    ['stream as a string', { ...BODY, stream: 'yes' }],
    ['a tool_choice of an unknown type', { ...BODY, tool_choice: { type: 'maybe' } }],
  ];
  for (const [name, body] of invalid) {
    it(`answers ${name} with 400 invalid_request_error`, async () => {
      await start({ replies: [] });
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.any(String) } });
      expect(setup!.gateway.store.listSessions()).toEqual([]);
      expect(setup!.sim.log).toEqual([]);
    });
  }

  it('answers unknown routes and methods under the Anthropic paths with 404 not_found_error', async () => {
    await start({ replies: [] });
    for (const [method, url] of [
      ['POST', '/v1/messages/batches'],
      ['GET', '/s/x/v1/messages'],
      ['POST', '/s/x/v1/messages/count_tokens/extra'],
    ]) {
      const response = await setup!.gateway.app.inject({ method: method as 'GET' | 'POST', url, payload: method === 'POST' ? {} : undefined });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    }
  });

  it('answers an oversized body with 413 request_too_large and a non-JSON content type with 415', async () => {
    const temp = makeTempDir();
    const gateway = createGateway({
      backendUrl: `http://127.0.0.1:${await closedPort()}`,
      db: temp.file('t.db'),
      logLevel: 'silent',
      bodyLimit: 1024,
    });
    try {
      const large = await gateway.app.inject({ method: 'POST', url: '/s/big/v1/messages', payload: { ...BODY, system: 'x'.repeat(2000) } });
      expect(large.statusCode).toBe(413);
      expect(large.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
      const plain = await gateway.app.inject({ method: 'POST', url: '/s/big/v1/messages', headers: { 'content-type': 'text/plain' }, payload: 'hi' });
      expect(plain.statusCode).toBe(415);
      expect(plain.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(gateway.store.listSessions()).toEqual([]);
    } finally {
      await gateway.close();
      temp.remove();
    }
  });

  it('answers an unreachable backend with 502 api_error, for messages and count_tokens', async () => {
    const temp = makeTempDir();
    const gateway = createGateway({ backendUrl: `http://127.0.0.1:${await closedPort()}`, db: temp.file('t.db'), logLevel: 'silent' });
    try {
      for (const url of ['/v1/messages', '/v1/messages/count_tokens']) {
        const response = await gateway.app.inject({ method: 'POST', url, payload: BODY });
        expect(response.statusCode).toBe(502);
        expect(response.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      }
      expect(gateway.store.listCalls('default').map((call) => call.status)).toEqual(['backend_error']);
    } finally {
      await gateway.close();
      temp.remove();
    }
  });
});
