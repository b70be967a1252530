import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { metricValue } from '../gateway/metrics/metric-value.js';
import { answerReply, MODEL, orderedScript, startTokenFaithful } from './token-faithful-fixtures.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** A per-request template (vLLM's `chat_template` field) the gateway's renderer refuses; the backend serves the call anyway. */
const REFUSING_TEMPLATE = "{{ raise_exception('this template renders nothing') }}";

const FALLBACKS = 'tokentap_token_faithful_fallbacks_total';

describe('a token-faithful call that falls back to plain at run time is flagged and counted (issue 16, item 5)', () => {
  it('flags the call token_faithful_fallback and counts it by reason on /metrics; reconstruction keeps its exact ids', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('served plain')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('fell-back'), apiKey: 'x', maxRetries: 0 });
    const body = { model: MODEL, messages: [{ role: 'user' as const, content: 'Hi' }], chat_template: REFUSING_TEMPLATE };
    const answer = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(answer.choices[0]!.message.content).toContain('served plain');
    expect(setup.sim.log[0]!.endpoint).toBe('chat');
    const [call] = setup.gateway.store.listCalls('fell-back');
    expect(call!.metadata.tokenFaithful).toMatchObject({ mode: 'plain', reason: 'render-failed', error: expect.stringContaining('renders nothing') });
    expect(call!.status).toBe('ok');
    expect(call!.flags).toEqual(['token_faithful_fallback']);
    expect(await metricValue(setup.url, FALLBACKS, { reason: 'render-failed' })).toBe(1);
    // its ids are the backend's own, exact: one sample, trained, and the verifier accepts it
    const samples = reconstructSession(setup.gateway.store, 'fell-back', { strategy: 'merge' });
    expect(samples.map((sample) => sample.callIds)).toEqual([[call!.id]]);
    expect(verifySample(samples[0]!, setup.gateway.store.listCalls('fell-back'))).toEqual({ ok: true });
  });

  it('flags a fallback that the backend then refuses too, streamed (the row is the backend error)', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('never')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('refused'), apiKey: 'x', maxRetries: 0 });
    const broken = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_step', arguments: '{not json' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
    ];
    // the local template cannot json-parse the arguments; vLLM's chat endpoint refuses them with a 400
    await expect(client.chat.completions.create({ model: MODEL, messages: broken, stream: true } as never)).rejects.toMatchObject({ status: 400 });
    const [call] = setup.gateway.store.listCalls('refused');
    expect(call!.status).toBe('backend_error');
    expect(call!.flags).toEqual(['token_faithful_fallback']);
    expect(await metricValue(setup.url, FALLBACKS, { reason: 'render-failed' })).toBe(1);
  });

  it('does not flag or count a request the mode leaves to the chat endpoint by design (an image)', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('a cat')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('image'), apiKey: 'x', maxRetries: 0 });
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }],
    });
    const [call] = setup.gateway.store.listCalls('image');
    expect(call!.metadata.tokenFaithful).toMatchObject({ mode: 'plain', reason: 'multimodal-content' });
    expect(call!.flags).toEqual([]);
    expect(await metricValue(setup.url, FALLBACKS)).toBe(0);
  });

  it('flags nothing on a call rendered token-faithfully', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('faithful')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('faithful'), apiKey: 'x', maxRetries: 0 });
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] });
    const [call] = setup.gateway.store.listCalls('faithful');
    expect(call!.metadata.tokenFaithful).toMatchObject({ mode: 'fresh', reason: 'first-call' });
    expect(call!.flags).toEqual([]);
  });
});
