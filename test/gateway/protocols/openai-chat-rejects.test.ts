import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { closedPort } from '../../helpers/closed-port.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

let gateway: Gateway;
let temp: ReturnType<typeof makeTempDir>;

beforeEach(async () => {
  temp = makeTempDir();
  gateway = createGateway({ backendUrl: `http://127.0.0.1:${await closedPort()}`, db: temp.file('t.db'), logLevel: 'silent', bodyLimit: 4096 });
});

afterEach(async () => {
  await gateway.close();
  temp.remove();
});

function postChat(payload: string, headers: Record<string, string> = { 'content-type': 'application/json' }, url = '/s/run-1/v1/chat/completions') {
  return gateway.app.inject({ method: 'POST', url, headers, payload });
}

describe('the chat front door rejects bad input in OpenAI shape and records nothing', () => {
  it('answers malformed JSON with 400 invalid_request_error', async () => {
    const response = await postChat('{"messages": [');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'TT_INVALID_REQUEST' } });
    expect(gateway.store.listSessions()).toEqual([]);
  });

  it('answers missing or wrongly typed messages with 400 naming the field', async () => {
    for (const body of [
      {},
      { messages: 'hi' },
      { messages: [] },
      { messages: [{ content: 'no role' }] },
      { messages: [{ role: 'user' }], stream: 'yes' },
    ]) {
      const response = await postChat(JSON.stringify(body));
      expect(response.statusCode).toBe(400);
      const error = response.json().error as { type: string; message: string; param: string | null };
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toMatch(/messages|stream/);
    }
    expect(gateway.store.listSessions()).toEqual([]);
  });

  it('refuses n > 1, since one call records one sampled sequence', async () => {
    const response = await postChat(JSON.stringify({ messages: [{ role: 'user', content: 'x' }], n: 2 }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.param).toBe('n');
  });

  it('answers a body over the limit with 413', async () => {
    const response = await postChat(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] }));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: { code: 'TT_BODY_TOO_LARGE' } });
    expect(gateway.store.listSessions()).toEqual([]);
  });

  it('answers a non-JSON content type with 415', async () => {
    const response = await postChat('hello', { 'content-type': 'text/plain' });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('TT_UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses prototype-pollution keys with 400', async () => {
    const response = await postChat('{"messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":true}}');
    expect(response.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a malformed session id with 400 rather than guessing', async () => {
    const response = await postChat(
      JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
      { 'content-type': 'application/json', 'x-tokentap-session': 'bad id/..' },
      '/v1/chat/completions',
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('TT_INVALID_SESSION');
  });

  it('answers unknown routes with 404 in OpenAI shape', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.type).toBe('not_found_error');
  });
});

describe('an unreachable backend', () => {
  it('answers 502 and records the call as backend_error', async () => {
    const response = await postChat(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }));
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('TT_BACKEND_UNREACHABLE');
    const calls = gateway.store.listCalls('run-1');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: 'backend_error', tokenSource: 'none', promptTokenIds: null, httpStatus: null });
    expect(calls[0]?.error?.code).toBe('TT_BACKEND_UNREACHABLE');
  });

  it('still answers /healthz', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('ok');
  });
});
