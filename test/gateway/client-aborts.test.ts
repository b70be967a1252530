import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { SimGenerationRecord } from '../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { sampleValue } from './metrics/metric-value.js';

const MODEL = 'Qwen/Qwen3-8B';
const LONG_REPLY = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
const messages = [{ role: 'user', content: 'hello there' }];

/** Each front door that makes a model call, with a valid body (the prompt text picks the simulator's reply). */
const FRONT_DOORS = [
  { frontDoor: 'openai-chat', path: '/v1/chat/completions', body: (text: string) => ({ model: MODEL, messages: [{ role: 'user', content: text }] }) },
  { frontDoor: 'openai-completions', path: '/v1/completions', body: (text: string) => ({ model: MODEL, prompt: text, max_tokens: 200 }) },
  { frontDoor: 'openai-responses', path: '/v1/responses', body: (text: string) => ({ model: MODEL, input: text }) },
  {
    frontDoor: 'anthropic-messages',
    path: '/v1/messages',
    body: (text: string) => ({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: text }] }),
  },
] as const;

let setup: GatewayWithSim;
beforeAll(async () => {
  // non-streamed answers wait for every token (2 per second: minutes), streams pace them: a harness leaves mid-way
  setup = await startGatewayWithSim(
    {
      tokensPerSecond: 2,
      script: {
        replies: [
          { match: { promptContains: 'refuse me' }, times: 'forever', fault: { kind: 'refuse' } },
          { match: { promptContains: 'cut me' }, times: 'forever', content: LONG_REPLY, fault: { kind: 'cut-stream', afterTokens: 1 } },
          { times: 'forever', content: LONG_REPLY },
        ],
      },
    },
    { backendRetries: 0 },
  );
  setup.sim.on('generation', (record) => generationWaiters.shift()?.(record));
  setup.sim.on('cancel', (record) => cancelWaiters.get(record)?.(record));
});
afterAll(async () => {
  await setup.close();
});

async function metrics(): Promise<string> {
  return (await fetch(`${setup.url}/metrics`)).text();
}

/** Every `tokentap_errors_total` sample of a front door, summed over codes. */
function errorsOf(text: string, frontDoor: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith('tokentap_errors_total{') && line.includes(`front_door="${frontDoor}"`))
    .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
}

const generationWaiters: Array<(record: SimGenerationRecord) => void> = [];
const cancelWaiters = new Map<SimGenerationRecord, (record: SimGenerationRecord) => void>();

/** Resolves with the simulator's record of the next request once it arrives, and once its client disconnects. */
function nextGeneration(): { arrived: Promise<SimGenerationRecord>; cancelled: Promise<SimGenerationRecord> } {
  const arrived = new Promise<SimGenerationRecord>((resolve) => generationWaiters.push(resolve));
  const cancelled = arrived.then((record) =>
    record.cancelled ? record : new Promise<SimGenerationRecord>((resolve) => cancelWaiters.set(record, resolve)),
  );
  return { arrived, cancelled };
}

async function onlyEndedCall(session: string) {
  // the row is written by the recording thread: it may not be there yet when the backend saw the cancel (no row is not an end)
  await expect
    .poll(() => {
      const status = setup.gateway.store.listCalls(session)[0]?.status;
      return status !== undefined && status !== 'in_progress';
    })
    .toBe(true);
  const calls = setup.gateway.store.listCalls(session);
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

/** Checks what a harness abort leaves: the row, the cancelled backend request, and the counters. */
async function expectClientAbort(session: string, frontDoor: string, before: string, cancelled: Promise<SimGenerationRecord>): Promise<void> {
  expect((await cancelled).cancelled).toBe(true);
  const call = await onlyEndedCall(session);
  expect(call.status).toBe('aborted');
  expect(call.error).toMatchObject({ code: 'TT_CLIENT_ABORTED', httpStatus: 499 });
  const after = await metrics();
  expect(
    sampleValue(after, 'tokentap_client_aborts_total', { front_door: frontDoor }) -
      sampleValue(before, 'tokentap_client_aborts_total', { front_door: frontDoor }),
  ).toBe(1);
  expect(sampleValue(after, 'tokentap_errors_total', { front_door: frontDoor, code: 'TT_BACKEND_UNREACHABLE' })).toBe(0);
  expect(errorsOf(after, frontDoor)).toBe(errorsOf(before, frontDoor));
}

describe('a harness that leaves a call is counted as a client abort, never as a backend failure', () => {
  for (const door of FRONT_DOORS) {
    it(`${door.frontDoor}: leaving a non-streamed call while the backend generates`, async () => {
      const session = `gone-body-${door.frontDoor}`;
      const before = await metrics();
      const { arrived, cancelled } = nextGeneration();
      const controller = new AbortController();
      const answered = fetch(`${setup.url}/s/${session}${door.path}`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(door.body('hello there')),
      });
      await arrived;
      controller.abort();
      await expect(answered).rejects.toThrow(/abort/i);
      await expectClientAbort(session, door.frontDoor, before, cancelled);
    });

    it(`${door.frontDoor}: leaving a stream after its first event`, async () => {
      const session = `gone-stream-${door.frontDoor}`;
      const before = await metrics();
      const { cancelled } = nextGeneration();
      const controller = new AbortController();
      const response = await fetch(`${setup.url}/s/${session}${door.path}`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...door.body('hello there'), stream: true }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      controller.abort();
      await expectClientAbort(session, door.frontDoor, before, cancelled);
    });
  }

  it('the openai client aborted through its signal: a non-streamed chat call', async () => {
    const before = await metrics();
    const { arrived, cancelled } = nextGeneration();
    const client = new OpenAI({ baseURL: `${setup.url}/s/gone-openai-sdk/v1`, apiKey: 'harness-key', maxRetries: 0 });
    const controller = new AbortController();
    const answered = client.chat.completions.create(
      { model: MODEL, messages: [...messages] as OpenAI.ChatCompletionMessageParam[] },
      { signal: controller.signal },
    );
    await arrived;
    controller.abort();
    await expect(answered).rejects.toThrow(/abort/i);
    await expectClientAbort('gone-openai-sdk', 'openai-chat', before, cancelled);
  });

  it('the anthropic client aborted through its signal: a streamed message', async () => {
    const before = await metrics();
    const { cancelled } = nextGeneration();
    const client = new Anthropic({ baseURL: `${setup.url}/s/gone-anthropic-sdk`, apiKey: 'harness-key', maxRetries: 0 });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'hello there' }] });
    for await (const event of stream) {
      if (event.type === 'content_block_delta') break;
    }
    stream.abort();
    await expectClientAbort('gone-anthropic-sdk', 'anthropic-messages', before, cancelled);
  });
});

describe('a real backend failure is still counted as one', () => {
  it('an unreachable backend (reset before answering) counts TT_BACKEND_UNREACHABLE and no client abort', async () => {
    const before = await metrics();
    const response = await fetch(`${setup.url}/s/refused/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'refuse me' }] }),
    });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TT_BACKEND_UNREACHABLE');
    expect(await onlyEndedCall('refused')).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_UNREACHABLE', httpStatus: 502 } });
    const after = await metrics();
    const unreachable = { front_door: 'openai-chat', code: 'TT_BACKEND_UNREACHABLE' };
    expect(sampleValue(after, 'tokentap_errors_total', unreachable) - sampleValue(before, 'tokentap_errors_total', unreachable)).toBe(1);
    expect(sampleValue(after, 'tokentap_client_aborts_total', { front_door: 'openai-chat' })).toBe(
      sampleValue(before, 'tokentap_client_aborts_total', { front_door: 'openai-chat' }),
    );
  });

  it('a stream the backend cuts counts TT_BACKEND_STREAM_CUT and no client abort', async () => {
    const before = await metrics();
    const response = await fetch(`${setup.url}/s/cut/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'cut me' }], stream: true }),
    });
    expect(await response.text()).toContain('TT_BACKEND_STREAM_CUT');
    expect(await onlyEndedCall('cut')).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_STREAM_CUT' } });
    const after = await metrics();
    const cut = { front_door: 'openai-chat', code: 'TT_BACKEND_STREAM_CUT' };
    expect(sampleValue(after, 'tokentap_errors_total', cut) - sampleValue(before, 'tokentap_errors_total', cut)).toBe(1);
    expect(sampleValue(after, 'tokentap_client_aborts_total', { front_door: 'openai-chat' })).toBe(
      sampleValue(before, 'tokentap_client_aborts_total', { front_door: 'openai-chat' }),
    );
  });
});
