import { afterEach, describe, expect, it } from 'vitest';
import type { SimBackendOptions, SimScript } from '../../../sim/index.js';
import type { GatewayOptions } from '../../../gateway/create-gateway.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { metricValue, sampleValue } from './metric-value.js';

const started: GatewayWithSim[] = [];
afterEach(async () => {
  for (const setup of started.splice(0)) await setup.close();
});

async function start(
  script: SimScript | undefined = undefined,
  gatewayOptions: GatewayOptions = {},
  simOptions: SimBackendOptions = {},
): Promise<GatewayWithSim> {
  const setup = await startGatewayWithSim({ ...(script === undefined ? {} : { script }), ...simOptions }, gatewayOptions);
  started.push(setup);
  return setup;
}

const REPLY = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';

function postChat(setup: GatewayWithSim, session: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${setup.openaiBase(session)}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hello' }], ...body }),
  });
}

describe('GET /metrics', () => {
  it('serves the text exposition: requests, calls, latency histograms and the tokens recorded, per front door', async () => {
    const setup = await start();
    await (await postChat(setup, 'm')).text();
    await (await postChat(setup, 'm', { stream: true })).text();
    const response = await fetch(`${setup.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const calls = setup.gateway.store.listCalls('m');
    const sum = (pick: (call: (typeof calls)[number]) => ArrayLike<number> | null): number =>
      calls.reduce((total, call) => total + (pick(call)?.length ?? 0), 0);
    expect(sampleValue(text, 'tokentap_requests_total', { front_door: 'openai-chat', status_code: '200' })).toBe(2);
    expect(sampleValue(text, 'tokentap_calls_total', { front_door: 'openai-chat', status: 'ok' })).toBe(2);
    expect(sampleValue(text, 'tokentap_calls_recorded_total')).toBe(2);
    expect(sampleValue(text, 'tokentap_tokens_recorded_total', { kind: 'prompt' })).toBe(sum((call) => call.promptTokenIds));
    expect(sampleValue(text, 'tokentap_tokens_recorded_total', { kind: 'completion' })).toBe(sum((call) => call.completionTokenIds));
    expect(sampleValue(text, 'tokentap_call_duration_seconds_count', { front_door: 'openai-chat', stream: 'true' })).toBe(1);
    expect(sampleValue(text, 'tokentap_time_to_first_token_seconds_count', { front_door: 'openai-chat', stream: 'false' })).toBe(1);
    expect(sampleValue(text, 'tokentap_calls_in_flight', { front_door: 'openai-chat' })).toBe(0);
    expect(sampleValue(text, 'tokentap_recording_up')).toBe(1);
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('counts each error answered once, by code: refused input, a backend error, a stream cut, on either protocol', async () => {
    const setup = await start(
      {
        replies: [
          { fault: { kind: 'http-error', status: 500 } },
          { content: REPLY, fault: { kind: 'cut-stream', afterTokens: 2 } },
          { fault: { kind: 'http-error', status: 500 } },
        ],
      },
      { backendRetries: 0 },
    );
    expect((await postChat(setup, 'e', { messages: 'not a list' })).status).toBe(400);
    expect((await postChat(setup, 'e')).status).toBe(500);
    await (await postChat(setup, 'e', { stream: true })).text();
    const anthropic = await fetch(`${setup.url}/s/e/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(anthropic.status).toBe(500);
    const text = await (await fetch(`${setup.url}/metrics`)).text();
    expect(sampleValue(text, 'tokentap_errors_total', { front_door: 'openai-chat', code: 'TT_INVALID_REQUEST' })).toBe(1);
    expect(sampleValue(text, 'tokentap_errors_total', { front_door: 'openai-chat', code: 'TT_BACKEND_ERROR' })).toBe(1);
    expect(sampleValue(text, 'tokentap_errors_total', { front_door: 'openai-chat', code: 'TT_BACKEND_STREAM_CUT' })).toBe(1);
    expect(sampleValue(text, 'tokentap_errors_total', { front_door: 'anthropic-messages', code: 'TT_BACKEND_ERROR' })).toBe(1);
    expect(sampleValue(text, 'tokentap_requests_total', { front_door: 'openai-chat', status_code: '400' })).toBe(1);
    expect(sampleValue(text, 'tokentap_calls_total', { front_door: 'openai-chat', status: 'backend_error' })).toBe(2);
  });

  it('shows a call in flight while it streams, and none once it ended', async () => {
    const setup = await start({ replies: [{ content: `${REPLY} ${REPLY}` }] }, {}, { tokensPerSecond: 30 });
    const response = await postChat(setup, 'live', { stream: true });
    const reader = response.body!.getReader();
    await reader.read();
    expect(await metricValue(setup.url, 'tokentap_calls_in_flight', { front_door: 'openai-chat' })).toBe(1);
    while (!(await reader.read()).done);
    await expect.poll(() => metricValue(setup.url, 'tokentap_calls_in_flight', { front_door: 'openai-chat' })).toBe(0);
  });

  it('keeps one registry per gateway: two gateways in one process count their own calls', async () => {
    const first = await start();
    const second = await start();
    await (await postChat(first, 'a')).text();
    expect(await metricValue(first.url, 'tokentap_calls_total', { front_door: 'openai-chat', status: 'ok' })).toBe(1);
    expect(await metricValue(second.url, 'tokentap_calls_total', { front_door: 'openai-chat', status: 'ok' })).toBe(0);
  });

  it('is open like /healthz (no admin token needed) and names no session', async () => {
    const setup = await start(undefined, { adminToken: 'an-admin-token-of-length' });
    await (await postChat(setup, 'private-session-4711')).text();
    const response = await fetch(`${setup.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain('private-session-4711');
  });
});
