import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { SimBackendOptions, SimGenerationRecord, SimScript } from '../../sim/index.js';
import type { GatewayOptions } from '../../gateway/create-gateway.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(script: SimScript, simOptions: SimBackendOptions = {}, gatewayOptions: GatewayOptions = {}): Promise<GatewayWithSim> {
  setup = await startGatewayWithSim({ script, ...simOptions }, gatewayOptions);
  return setup;
}

const USER = [{ role: 'user' as const, content: 'hello there' }];
const LONG_REPLY = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen';

function post(base: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: USER, ...body }),
  });
}

/** Reads an SSE response to the end and returns its data payloads. */
async function readSseData(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
}

function onlyCall(gateway: GatewayWithSim, session: string) {
  const calls = gateway.gateway.store.listCalls(session);
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

describe('backend errors reach the harness in OpenAI shape and are recorded', () => {
  it('passes a backend 500 through with its message, recorded as backend_error with the body', async () => {
    const { openaiBase } = await start({ replies: [{ fault: { kind: 'http-error', status: 500, message: 'engine dead' } }] });
    const response = await post(openaiBase('e500'), {});
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain('engine dead');
    const call = onlyCall(setup!, 'e500');
    expect(call).toMatchObject({ status: 'backend_error', httpStatus: 500 });
    expect(JSON.stringify(call.error?.body)).toContain('engine dead');
  });

  it('passes 429 through with Retry-After so clients back off (retries off)', async () => {
    const { openaiBase } = await start(
      { replies: [{ fault: { kind: 'http-error', status: 429, message: 'slow down', headers: { 'retry-after': '7' } } }] },
      {},
      { backendRetries: 0 },
    );
    const response = await post(openaiBase('e429'), {});
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(onlyCall(setup!, 'e429').status).toBe('backend_error');
  });

  it('maps a context-length error (flat, old vLLM) to context_length_exceeded', async () => {
    const { openaiBase } = await start({ replies: [] }, { maxModelLen: 8, errorShape: 'flat' });
    const response = await post(openaiBase('ctx'), {});
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; type: string } };
    expect(body.error).toMatchObject({ code: 'context_length_exceeded', type: 'invalid_request_error' });
    expect(onlyCall(setup!, 'ctx').status).toBe('backend_error');
  });

  it('answers 504 when the backend never sends headers, and records the timeout', async () => {
    const { openaiBase } = await start({ replies: [{ fault: { kind: 'stall-headers' } }] }, {}, { backendHeadersTimeoutMs: 300 });
    const response = await post(openaiBase('stall'), {});
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TT_BACKEND_TIMEOUT');
    expect(onlyCall(setup!, 'stall')).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_TIMEOUT' } });
  });

  it('answers 502 when the backend resets the connection without answering (retries off)', async () => {
    const { openaiBase } = await start({ replies: [{ fault: { kind: 'refuse' } }] }, {}, { backendRetries: 0 });
    const response = await post(openaiBase('reset'), {});
    expect(response.status).toBe(502);
    expect(onlyCall(setup!, 'reset')).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_UNREACHABLE' } });
  });

  it('answers 502 for a body that is not JSON', async () => {
    const { openaiBase } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'malformed-json' } }] });
    const response = await post(openaiBase('badjson'), {});
    expect(response.status).toBe(502);
    expect(onlyCall(setup!, 'badjson')).toMatchObject({ status: 'backend_error', error: { code: 'TT_BACKEND_BAD_RESPONSE' } });
  });
});

describe('a stream that breaks after it started', () => {
  it('sends an SSE error event then ends, and records backend_error with the tokens received', async () => {
    const { openaiBase, sim } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'cut-stream', afterTokens: 4 } }] });
    const data = await readSseData(await post(openaiBase('cut'), { stream: true }));
    expect(data.at(-1)).not.toBe('[DONE]');
    expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { code: 'TT_BACKEND_STREAM_CUT' } });
    const call = onlyCall(setup!, 'cut');
    expect(call.status).toBe('backend_error');
    const generated = sim.log[0]!;
    expect(Array.from(call.promptTokenIds ?? [])).toEqual(generated.promptTokenIds);
    expect(Array.from(call.completionTokenIds ?? [])).toEqual(generated.completionTokenIds.slice(0, 4));
  });

  it('makes the openai client throw rather than return a truncated answer', async () => {
    const { openaiBase } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'cut-stream', afterTokens: 2 } }] });
    const client = new OpenAI({ baseURL: openaiBase('cut-sdk'), apiKey: 'x', maxRetries: 0 });
    const consume = async (): Promise<void> => {
      const stream = await client.chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: USER, stream: true });
      for await (const chunk of stream) void chunk;
    };
    await expect(consume()).rejects.toThrow(/closed the stream/);
  });

  it('reports malformed SSE as an error event and records it', async () => {
    const { openaiBase } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'malformed-sse', afterTokens: 3 } }] });
    const data = await readSseData(await post(openaiBase('badsse'), { stream: true }));
    expect(data.at(-1)).not.toBe('[DONE]');
    expect(JSON.parse(data.at(-1)!)).toHaveProperty('error');
    expect(onlyCall(setup!, 'badsse').status).toBe('backend_error');
  });
});

describe('a harness that goes away', () => {
  it('cancels the backend request and records the call as aborted with the tokens so far', async () => {
    const { openaiBase, sim } = await start({ replies: [{ content: `${LONG_REPLY} ${LONG_REPLY} ${LONG_REPLY}` }] }, { tokensPerSecond: 40 });
    const cancelled = new Promise<SimGenerationRecord>((resolve) => sim.on('cancel', resolve));
    const controller = new AbortController();
    const response = await fetch(`${openaiBase('gone')}/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: USER, stream: true }),
    });
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('"content":" two"')) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const record = await cancelled;
    expect(record.cancelled).toBe(true);
    await expect.poll(() => setup!.gateway.store.listCalls('gone')[0]?.status).toBe('aborted');
    const call = onlyCall(setup!, 'gone');
    const got = Array.from(call.completionTokenIds ?? []);
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(got.length).toBeLessThan(record.completionTokenIds.length);
    expect(got).toEqual(record.completionTokenIds.slice(0, got.length));
  });
});

describe('token data that does not add up is flagged, never trusted silently', () => {
  it('flags old-vLLM streams that drop tool-call ids (joined ids short of usage)', async () => {
    const { openaiBase } = await start(
      { replies: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a', content: 'b' } }] }] },
      { dropStreamedToolCallIds: true },
    );
    await readSseData(
      await post(openaiBase('drop'), {
        stream: true,
        tools: [{ type: 'function', function: { name: 'write_file', parameters: { type: 'object' } } }],
      }),
    );
    const call = onlyCall(setup!, 'drop');
    expect(call.status).toBe('ok');
    expect(call.flags).toContain('completion_ids_mismatch_usage');
  });

  it('flags a response whose token ids disagree with its logprobs', async () => {
    const { openaiBase } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'wrong-token-ids' } }] });
    await post(openaiBase('wrong'), {});
    expect(onlyCall(setup!, 'wrong').flags.length).toBeGreaterThan(0);
  });
});

describe('slow and odd bodies (the cross-family fault matrix is backend-faults-families.test.ts)', () => {
  it('relays a slow body in full while it never falls silent past the timeout', async () => {
    const { openaiBase, sim } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'slow-body', delayMs: 5, chunkBytes: 256 } }] });
    const response = await post(openaiBase('slow-ok'), {});
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toContain('sixteen');
    expect(Array.from(onlyCall(setup!, 'slow-ok').completionTokenIds ?? [])).toEqual(sim.log[0]!.completionTokenIds);
  });

  it('reports a stream chunk that is not JSON as an error event TT_BACKEND_BAD_RESPONSE', async () => {
    const { openaiBase } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'malformed-json', afterTokens: 2 } }] });
    const data = await readSseData(await post(openaiBase('badchunk'), { stream: true }));
    expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { code: 'TT_BACKEND_BAD_RESPONSE' } });
    expect(onlyCall(setup!, 'badchunk')).toMatchObject({ status: 'backend_error', httpStatus: 200, error: { code: 'TT_BACKEND_BAD_RESPONSE' } });
  });

  it('serves and records the next call exactly after a response with wrong token ids', async () => {
    const { openaiBase, sim } = await start({ replies: [{ content: LONG_REPLY, fault: { kind: 'wrong-token-ids' } }, { content: 'all good now' }] });
    await (await post(openaiBase('after-wrong'), {})).text();
    expect((await post(openaiBase('after-wrong'), {})).status).toBe(200);
    const calls = setup!.gateway.store.listCalls('after-wrong');
    expect(calls.map((call) => [call.status, call.flags.length > 0])).toEqual([
      ['ok', true],
      ['ok', false],
    ]);
    expect(Array.from(calls[1]!.completionTokenIds ?? [])).toEqual(sim.log[1]!.completionTokenIds);
  });
});
