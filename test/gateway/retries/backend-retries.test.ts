import { afterEach, describe, expect, it } from 'vitest';
import type { SimScript } from '../../../sim/index.js';
import type { GatewayOptions } from '../../../gateway/create-gateway.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { closedPort } from '../../helpers/closed-port.js';
import { metricValue } from '../metrics/metric-value.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Retries with a 1 ms backoff: what is tested is whether and how often, not how long. */
async function start(script: SimScript, options: GatewayOptions = {}): Promise<GatewayWithSim> {
  setup = await startGatewayWithSim({ script }, { backendRetryBackoffMs: 1, ...options });
  return setup;
}

const REPLY = 'one two three four five six seven eight nine ten';

function postChat(session: string, body: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${setup!.openaiBase(session)}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    signal,
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hello' }], ...body }),
  });
}

function onlyCall(session: string) {
  const calls = setup!.gateway.store.listCalls(session);
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

describe('a failure before the answer started is retried, and the call recorded once', () => {
  it('waits out a 429 Retry-After, then serves the answer: one ok call with exact ids and its attempts', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'http-error', status: 429, headers: { 'retry-after': '1' } } }, { content: REPLY }] });
    const response = await postChat('rate');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe(REPLY);
    expect(sim.log.map((record) => record.status)).toEqual([429, 200]);
    const call = onlyCall('rate');
    expect(call.status).toBe('ok');
    expect(Array.from(call.promptTokenIds ?? [])).toEqual(sim.log[1]!.promptTokenIds);
    expect(Array.from(call.completionTokenIds ?? [])).toEqual(sim.log[1]!.completionTokenIds);
    expect(call.metadata).toMatchObject({ backendAttempts: 2, backendRetries: [{ attempt: 1, status: 429, waitMs: 1000 }] });
    expect(await metricValue(setup!.url, 'tokentap_backend_retries_total', { reason: '429' })).toBe(1);
  });

  it('sends again after the backend reset the connection without answering', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'refuse' } }, { content: REPLY }] });
    const response = await postChat('reset');
    expect(response.status).toBe(200);
    expect(sim.log).toHaveLength(2);
    const call = onlyCall('reset');
    expect(call.status).toBe('ok');
    expect(Array.from(call.completionTokenIds ?? [])).toEqual(sim.log[1]!.completionTokenIds);
    expect(call.metadata).toMatchObject({
      backendAttempts: 2,
      backendRetries: [{ attempt: 1, code: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET/) }],
    });
  });

  it('retries a streamed call that failed before its first byte, and streams the answer', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'http-error', status: 503 } }, { content: REPLY }] });
    const text = await (await postChat('stream', { stream: true })).text();
    expect(text).toContain('data: [DONE]');
    expect(sim.log).toHaveLength(2);
    expect(onlyCall('stream')).toMatchObject({ status: 'ok', metadata: { backendAttempts: 2 } });
  });
});

describe('what is not retried, or no more', () => {
  it('passes the last 503 on once retries are exhausted, with every attempt recorded', async () => {
    const { sim } = await start({ replies: [{ times: 3, fault: { kind: 'http-error', status: 503, message: 'busy' } }, { content: REPLY }] });
    const response = await postChat('busy');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('busy');
    expect(sim.log).toHaveLength(3);
    const call = onlyCall('busy');
    expect(call).toMatchObject({ status: 'backend_error', httpStatus: 503, metadata: { backendAttempts: 3 } });
    expect((call.metadata.backendRetries as unknown[]).length).toBe(2);
  });

  it('answers 502 naming the attempts when the backend stays unreachable', async () => {
    await start({ replies: [] }, { backendUrl: `http://127.0.0.1:${await closedPort()}` });
    const response = await postChat('down');
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'TT_BACKEND_UNREACHABLE', message: expect.stringContaining('after 3 attempts') });
    expect(onlyCall('down')).toMatchObject({ status: 'backend_error', metadata: { backendAttempts: 3 } });
    expect(await metricValue(setup!.url, 'tokentap_backend_retries_total', { reason: 'ECONNREFUSED' })).toBe(2);
  });

  it('does not retry a 500 (the engine failed on this very request)', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'http-error', status: 500 } }, { content: REPLY }] });
    expect((await postChat('e500')).status).toBe(500);
    expect(sim.log).toHaveLength(1);
    expect(onlyCall('e500').metadata).not.toHaveProperty('backendAttempts');
  });

  it('passes a Retry-After longer than backendRetryAfterMaxMs to the harness instead of waiting', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'http-error', status: 429, headers: { 'retry-after': '30' } } }, { content: REPLY }] });
    const response = await postChat('long-wait');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(sim.log).toHaveLength(1);
  });

  it('never retries once the stream began: a cut after 3 tokens ends in an error event, one backend request', async () => {
    const { sim } = await start({ replies: [{ content: REPLY, fault: { kind: 'cut-stream', afterTokens: 3 } }, { content: REPLY }] });
    const text = await (await postChat('cut', { stream: true })).text();
    expect(text).toContain('TT_BACKEND_STREAM_CUT');
    expect(text).not.toContain('[DONE]');
    expect(sim.log).toHaveLength(1);
    expect(onlyCall('cut')).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_STREAM_CUT' } });
  });

  it('stops waiting when the harness leaves during the backoff: recorded aborted, no further attempt', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'http-error', status: 429, headers: { 'retry-after': '9' } } }, { content: REPLY }] });
    const controller = new AbortController();
    const pending = postChat('left', {}, controller.signal).catch((error: unknown) => error);
    await expect.poll(() => sim.log.length).toBe(1);
    controller.abort();
    await pending;
    await expect.poll(() => setup!.gateway.store.listCalls('left')[0]?.status).toBe('aborted');
    expect(onlyCall('left').metadata).toMatchObject({
      backendAttempts: 1,
      backendRetries: [{ attempt: 1, status: 429, waitMs: 9000, cancelled: true }],
    });
    expect(sim.log).toHaveLength(1);
  });

  it('retries on the Anthropic front door too, answering in its shape', async () => {
    const { sim } = await start({ replies: [{ fault: { kind: 'http-error', status: 502 } }, { content: REPLY }] });
    const response = await fetch(`${setup!.url}/s/claude/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: REPLY }] });
    expect(sim.log).toHaveLength(2);
    expect(onlyCall('claude')).toMatchObject({ status: 'ok', frontDoor: 'anthropic-messages', metadata: { backendAttempts: 2 } });
  });
});
