import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { agentLightningStream, readCapture, sseDataLines } from './backends/vllm-captures.js';

/** A backend that answers every chat request with one recorded vLLM stream, byte for byte. */
async function startReplayBackend(sse: string, contentType = 'text/event-stream'): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': contentType });
      // a few writes of uneven size, so event boundaries fall inside chunks
      for (let start = 0; start < sse.length; start += 997) response.write(sse.slice(start, start + 997));
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function gatewayInFrontOf(sse: string, contentType?: string): Promise<{ gateway: Gateway; url: string }> {
  const backend = await startReplayBackend(sse, contentType);
  cleanup.push(() => new Promise((resolve) => backend.server.close(resolve)));
  const temp = makeTempDir();
  cleanup.push(() => temp.remove());
  const gateway = createGateway({ backendUrl: backend.url, db: temp.file('t.db'), port: 0, logLevel: 'silent' });
  cleanup.push(() => gateway.close());
  return { gateway, url: await gateway.listen() };
}

async function streamChat(url: string, session: string): Promise<string[]> {
  const response = await fetch(`${url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
  });
  expect(response.status).toBe(200);
  return sseDataLines(await response.text());
}

describe('real vLLM streams replayed through the gateway', () => {
  it('records the Agent Lightning stream exactly (63 prompt ids, 200 completion ids) and hides the ids from the harness', async () => {
    const { chunks } = agentLightningStream();
    const { gateway, url } = await gatewayInFrontOf(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n');
    const data = await streamChat(url, 'al');
    expect(data.at(-1)).toBe('[DONE]');
    expect(data).toHaveLength(202);
    expect(data.some((line) => line.includes('token_ids'))).toBe(false);
    const call = gateway.store.listCalls('al')[0];
    expect(call?.status).toBe('ok');
    expect(Array.from(call?.promptTokenIds ?? [])).toEqual(chunks[0]?.prompt_token_ids);
    const expected = chunks.flatMap((chunk) => (chunk.choices as Array<{ token_ids?: number[] }>)[0]?.token_ids ?? []);
    expect(Array.from(call?.completionTokenIds ?? [])).toEqual(expected);
    expect(expected).toHaveLength(200);
    // the capture asked for no logprobs: none recorded, and the call says which ids it has
    expect(call?.completionLogprobs).toBeNull();
    expect(call?.flags).toEqual([]);
  });

  it('records a stream without token ids as token_source none, with the content assembled', async () => {
    const { gateway, url } = await gatewayInFrontOf(readCapture('vllm-chat-stream-toolcalls-reasoning-cloudflare-qwen3-trimmed.sse'));
    const data = await streamChat(url, 'cf');
    expect(data.at(-1)).toBe('[DONE]');
    const call = gateway.store.listCalls('cf')[0];
    expect(call).toMatchObject({ status: 'ok', tokenSource: 'none', promptTokenIds: null, completionTokenIds: null, finishReason: 'tool_calls' });
    const bodies = gateway.store.getCallBodies(call?.id ?? '');
    expect(JSON.stringify(bodies?.responseBody)).toContain('add_todo');
    expect(bodies?.responseStream).toContain('TRIMMED BY RESEARCHER');
  });

  it('records a plain OpenAI-compatible answer (no ids at all) as token_source none, not as exact', async () => {
    const plain = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
    };
    const { gateway, url } = await gatewayInFrontOf(JSON.stringify(plain), 'application/json');
    const response = await fetch(`${url}/s/plain/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(await response.json()).toEqual(plain);
    const call = gateway.store.listCalls('plain')[0];
    expect(call).toMatchObject({
      status: 'ok',
      tokenSource: 'none',
      promptTokenIds: null,
      completionTokenIds: null,
      completionLogprobs: null,
      flags: [],
    });
  });

  it('refuses token ids that are not integers (502, recorded as backend_error) rather than coercing them', async () => {
    const bad = {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      prompt_token_ids: [1, 'two', 3],
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop', token_ids: [5] }],
    };
    const { gateway, url } = await gatewayInFrontOf(JSON.stringify(bad), 'application/json');
    const response = await fetch(`${url}/s/bad-ids/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TT_BACKEND_BAD_RESPONSE');
    expect(gateway.store.listCalls('bad-ids')[0]).toMatchObject({ status: 'backend_error', promptTokenIds: null });
  });
});

/** The Agent Lightning stream as SSE, after `edit` changed its chunks (a deep copy: the capture stays as read). */
function editedAgentLightningSse(edit: (chunks: Array<Record<string, any>>) => void): { sse: string; chunks: Array<Record<string, any>> } {
  const chunks = structuredClone(agentLightningStream().chunks) as Array<Record<string, any>>;
  edit(chunks);
  return { sse: chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n', chunks };
}

async function expectHealthyRecording(gateway: Gateway, url: string): Promise<void> {
  const health = await (await fetch(`${url}/healthz`)).json();
  expect(health).toMatchObject({ status: 'ok', recording: { recordingFailures: 0 } });
  for (const session of gateway.store.listSessions()) {
    expect(gateway.store.listCalls(session.id).filter((call) => call.status === 'in_progress')).toEqual([]);
  }
}

describe('a backend that sends numbers that are no token ids (issue 12): a flagged call, not a recording failure', () => {
  it('relays a stream whose prompt_token_ids hold 2^31 as sent, records it ok and flagged, without those ids', async () => {
    const { sse, chunks } = editedAgentLightningSse((edited) => {
      edited[0]!.prompt_token_ids[5] = 2147483648;
    });
    const { gateway, url } = await gatewayInFrontOf(sse);
    const data = await streamChat(url, 'wide-prompt-id');
    expect(data).toHaveLength(202);
    expect(data.at(-1)).toBe('[DONE]');
    const call = gateway.store.listCalls('wide-prompt-id')[0];
    expect(call).toMatchObject({ status: 'ok', tokenSource: 'backend', flags: ['invalid_token_ids'], promptTokenIds: null, finishReason: 'stop' });
    // the completion ids are good ids, kept; the call is flagged, so reconstruction never trains on it
    expect(call?.completionTokenIds).toHaveLength(200);
    // the raw stream keeps the prompt ids as sent: the row does not hold them, so they are not elided
    expect(gateway.store.getCallBodies(call?.id ?? '')?.responseStream).toContain(
      `"prompt_token_ids":${JSON.stringify(chunks[0]!.prompt_token_ids)}`,
    );
    await expectHealthyRecording(gateway, url);
  });

  for (const [name, id] of [
    ['-1', -1],
    ['0.5', 0.5],
    ['2^31', 2 ** 31],
  ] as const) {
    it(`relays a stream with a completion id of ${name} as sent, records it ok and flagged, keeps the prompt ids`, async () => {
      const { sse, chunks } = editedAgentLightningSse((edited) => {
        edited[10]!.choices[0].token_ids = [id];
      });
      const { gateway, url } = await gatewayInFrontOf(sse);
      const data = await streamChat(url, 'bad-completion-id');
      expect(data.at(-1)).toBe('[DONE]');
      const call = gateway.store.listCalls('bad-completion-id')[0];
      expect(call).toMatchObject({
        status: 'ok',
        tokenSource: 'backend',
        flags: ['invalid_token_ids'],
        completionTokenIds: null,
        completionLogprobs: null,
      });
      expect(Array.from(call?.promptTokenIds ?? [])).toEqual(chunks[0]?.prompt_token_ids);
      await expectHealthyRecording(gateway, url);
    });
  }

  it("answers a non-streamed completion whose token_ids hold 2^31 with the backend's answer, recorded ok and flagged", async () => {
    // vLLM 0.25.1's /v1/completions body; with return_token_ids it fills the choice's two id fields (usage: 326 + 48)
    const fenced = readCapture('vllm-completions-nonstream-v0.25.1-per-choice-fields.txt').split('```')[1] ?? '';
    const body = JSON.parse(fenced) as { choices: Array<Record<string, unknown>> };
    const prompt = Array.from({ length: 326 }, (_, index) => 151_000 + (index % 600));
    const completion = Array.from({ length: 48 }, (_, index) => 220 + index);
    completion[3] = 2147483648;
    Object.assign(body.choices[0]!, { prompt_token_ids: prompt, token_ids: completion });
    const { gateway, url } = await gatewayInFrontOf(JSON.stringify(body), 'application/json');
    const response = await fetch(`${url}/s/wide-completion-id/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen2.5-0.5B', prompt: 'x' }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { choices: Array<{ text: string; token_ids?: unknown }> };
    expect(answer.choices[0]?.text).toBe(body.choices[0]?.text);
    const call = gateway.store.listCalls('wide-completion-id')[0];
    expect(call).toMatchObject({ status: 'ok', flags: ['invalid_token_ids'], completionTokenIds: null, finishReason: 'stop' });
    expect(Array.from(call?.promptTokenIds ?? [])).toEqual(prompt);
    const stored = gateway.store.getCallBodies(call?.id ?? '')?.responseBody as { choices: Array<{ token_ids: number[] }> };
    expect(stored.choices[0]?.token_ids[3]).toBe(2147483648);
    await expectHealthyRecording(gateway, url);
  });
});

describe('a stream that ends with [DONE] before any chunk named a finish_reason (issue 12)', () => {
  it('is relayed as sent and recorded ok, flagged finish_reason_missing', async () => {
    const { sse } = editedAgentLightningSse((edited) => {
      edited.at(-1)!.choices[0].finish_reason = null;
    });
    const { gateway, url } = await gatewayInFrontOf(sse);
    const data = await streamChat(url, 'no-finish');
    expect(data).toHaveLength(202);
    expect(data.at(-1)).toBe('[DONE]');
    const call = gateway.store.listCalls('no-finish')[0];
    expect(call).toMatchObject({ status: 'ok', finishReason: null, flags: ['finish_reason_missing'] });
    expect(call?.completionTokenIds).toHaveLength(200);
  });
});
