import { afterEach, describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { CreatedSession, GatewayState } from '../../../gateway/rollouts/rollout-api.js';
import { api, chatBody, postChat, startRolloutGateway } from './rollout-test-helpers.js';

/** about 30 tokens: at 60 tokens per second a stream lasts half a second, long enough to pause and look while it runs */
const LONG_REPLY = 'The weights are being updated while this answer streams out one token after another, slowly enough to overlap a pause.';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Streams one chat call to the end with the official client; what the harness received, and the call id header. */
async function streamCall(created: CreatedSession, question: string): Promise<{ callId: string | null; text: string }> {
  const client = new OpenAI({ baseURL: created.baseUrls.openai, apiKey: created.apiKey, maxRetries: 0 });
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: question }], stream: true })
    .withResponse();
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return { callId: response.headers.get('x-tokentap-call-id'), text };
}

async function state(): Promise<GatewayState> {
  return (await api<GatewayState>(setup as GatewayWithSim, 'GET', '/state')).body;
}

describe('pause and drain for a weight update', () => {
  it('holds new calls, drains in-flight streams, and loses or duplicates none across the version change', async () => {
    setup = await startRolloutGateway({ tokensPerSecond: 60, script: { replies: [{ times: 'forever', content: LONG_REPLY }] } });
    await api(setup, 'PUT', '/policy-version', { body: { version: 'v1' } });
    const sessions = await Promise.all(
      [0, 1].map(async (index) => (await api<CreatedSession>(setup as GatewayWithSim, 'POST', '/sessions', { body: { id: `s${index}` } })).body),
    );
    const reachedBackend = vi.fn();
    setup.sim.on('generation', reachedBackend);
    const before = [0, 1, 2, 3].map((index) => streamCall(sessions[index % 2] as CreatedSession, `before ${index}`));
    await vi.waitFor(() => expect(reachedBackend).toHaveBeenCalledTimes(4), { timeout: 10_000 });

    const paused = (await api<GatewayState>(setup, 'POST', '/pause', { body: { mode: 'hold' } })).body;
    expect(paused).toMatchObject({ paused: true, pauseMode: 'hold', policyVersion: 'v1', inFlight: { count: 4 } });
    expect((await api(setup, 'POST', '/pause', { body: {} })).body).toMatchObject({ paused: true });
    const after = [0, 1, 2].map((index) => streamCall(sessions[index % 2] as CreatedSession, `after ${index}`));
    await vi.waitFor(async () => expect((await state()).held).toBe(3), { timeout: 10_000 });

    const drained = (await api<GatewayState>(setup, 'POST', '/pause', { body: { drain: true, drainTimeoutMs: 20_000 } })).body;
    expect(drained).toMatchObject({ drained: true, inFlight: { count: 0, callIds: [] }, held: 3 });
    expect(setup.sim.log).toHaveLength(4);
    const received = await Promise.all(before);
    await api(setup, 'PUT', '/policy-version', { body: { version: 'v2' } });
    expect((await api(setup, 'POST', '/resume')).body).toMatchObject({ paused: false });
    expect((await api(setup, 'POST', '/resume')).body).toMatchObject({ paused: false });
    received.push(...(await Promise.all(after)));

    const calls = [...setup.gateway.store.listCalls('s0'), ...setup.gateway.store.listCalls('s1')];
    expect(calls).toHaveLength(7);
    expect(setup.sim.log).toHaveLength(7);
    expect(new Set(calls.map((call) => call.id))).toEqual(new Set(received.map((call) => call.callId)));
    for (const { callId, text } of received) {
      const call = calls.find((row) => row.id === callId);
      expect(text).toBe(LONG_REPLY);
      expect(call?.status).toBe('ok');
      const body = setup.gateway.store.getCallBodies(callId ?? '')?.responseBody as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]?.message.content).toBe(text);
    }
    const versions = received.map(({ callId }) => calls.find((call) => call.id === callId)?.policyVersion);
    expect(versions).toEqual(['v1', 'v1', 'v1', 'v1', 'v2', 'v2', 'v2']);
    expect(await state()).toMatchObject({ paused: false, held: 0, inFlight: { count: 0 } });
  });

  it('reports in-flight calls by id while they stream', async () => {
    setup = await startRolloutGateway({ tokensPerSecond: 60, script: { replies: [{ times: 'forever', content: LONG_REPLY }] } });
    const created = (await api<CreatedSession>(setup, 'POST', '/sessions', { body: {} })).body;
    const reachedBackend = new Promise((resolve) => setup?.sim.on('generation', resolve));
    const running = streamCall(created, 'hello');
    await reachedBackend;
    const { inFlight } = await state();
    const { callId } = await running;
    expect(inFlight).toEqual({ count: 1, callIds: [callId] });
  });

  it('in reject mode answers 429 with Retry-After in each protocol shape, records nothing, and serves after resume', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } });
    const created = (await api<CreatedSession>(setup, 'POST', '/sessions', { body: {} })).body;
    await api(setup, 'POST', '/pause', { body: { mode: 'reject', retryAfterSeconds: 2 } });
    const openai = await fetch(`${created.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${created.apiKey}` },
      body: JSON.stringify(chatBody('hi')),
    });
    expect([openai.status, openai.headers.get('retry-after'), await openai.json()]).toMatchObject([
      429,
      '2',
      { error: { code: 'TT_PAUSED', type: 'rate_limit_error' } },
    ]);
    const anthropic = await fetch(`${created.baseUrls.anthropic}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': created.apiKey },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect([anthropic.status, anthropic.headers.get('retry-after'), await anthropic.json()]).toMatchObject([
      429,
      '2',
      { type: 'error', error: { type: 'rate_limit_error' } },
    ]);
    expect(setup.gateway.store.stats().calls).toBe(0);
    await api(setup, 'POST', '/resume');
    expect((await postChat(created.baseUrls.openai, created.apiKey, chatBody('hi'))).status).toBe(200);
  });

  it('a harness that gives up while held leaves nothing recorded', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } });
    const created = (await api<CreatedSession>(setup, 'POST', '/sessions', { body: {} })).body;
    await api(setup, 'POST', '/pause', { body: {} });
    const controller = new AbortController();
    const call = fetch(`${created.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${created.apiKey}` },
      body: JSON.stringify(chatBody('hi')),
    }).catch((error: unknown) => error);
    await vi.waitFor(async () => expect((await state()).held).toBe(1), { timeout: 10_000 });
    controller.abort();
    await call;
    await vi.waitFor(async () => expect((await state()).held).toBe(0), { timeout: 10_000 });
    await api(setup, 'POST', '/resume');
    expect(setup.gateway.store.stats().calls).toBe(0);
    expect(setup.sim.log).toHaveLength(0);
  });

  it('a call held when the gateway shuts down is answered 503, not left hanging', async () => {
    setup = await startRolloutGateway();
    const created = (await api<CreatedSession>(setup, 'POST', '/sessions', { body: {} })).body;
    await api(setup, 'POST', '/pause', { body: {} });
    const call = postChat(created.baseUrls.openai, created.apiKey, chatBody('hi'));
    await vi.waitFor(async () => expect((await state()).held).toBe(1), { timeout: 10_000 });
    await setup.gateway.close();
    expect(await call).toMatchObject({ status: 503, body: { error: { code: 'TT_SHUTTING_DOWN' } } });
  });

  it('pause, state and resume are admin only', async () => {
    setup = await startRolloutGateway();
    const created = (await api<CreatedSession>(setup, 'POST', '/sessions', { body: {} })).body;
    for (const [method, path] of [
      ['POST', '/pause'],
      ['POST', '/resume'],
      ['GET', '/state'],
    ] as const) {
      expect((await api(setup, method, path, { credential: created.apiKey })).status).toBe(403);
      expect((await api(setup, method, path, { credential: null })).status).toBe(401);
    }
    expect((await state()).paused).toBe(false);
    expect((await api(setup, 'POST', '/pause', { body: { mode: 'sometimes' } })).status).toBe(400);
    expect((await state()).paused).toBe(false);
  });
});
