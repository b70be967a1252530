import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { openStore } from '../../store/index.js';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { startGatewayProcess, type GatewayProcess } from '../../bench/gateway-process.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { closedPort } from '../helpers/closed-port.js';

/** 30 words: at 20 tokens/s the stream takes over a second and a half, long enough to signal in its middle. */
const SHORT_REPLY =
  'The gateway keeps streaming this answer to the end while it shuts down, then records it and closes the store before it exits with code zero.';
/** Hundreds of tokens: ten seconds and more at 20 tokens/s, far past a 200 ms shutdown timeout. */
const LONG_REPLY = Array.from({ length: 40 }, (_, index) => `Sentence ${index} of a long answer that the shutdown timeout cuts.`).join(' ');

let temp: ReturnType<typeof makeTempDir> | undefined;
let sim: SimBackend | undefined;
let gateway: GatewayProcess | undefined;

afterEach(async () => {
  gateway?.child.kill('SIGKILL');
  await gateway?.exited;
  await sim?.close();
  temp?.remove();
  [temp, sim, gateway] = [undefined, undefined, undefined];
});

/** A simulator answering `short` and `long` at 20 tokens/s, and `tokentap serve` in front of it (built CLI). */
async function startServe(shutdownTimeoutMs: number): Promise<{ gateway: GatewayProcess; sim: SimBackend; db: string }> {
  temp = makeTempDir();
  sim = await createSimBackend({
    fast: true,
    acceptAnyModel: true,
    tokensPerSecond: 20,
    script: {
      replies: [
        { match: { lastUserContains: 'short' }, content: SHORT_REPLY, times: 'forever' },
        { content: LONG_REPLY, times: 'forever' },
      ],
    },
  });
  const db = temp.file('shutdown.db');
  gateway = await startGatewayProcess({
    backendUrl: await sim.listen(),
    db,
    port: await closedPort(),
    args: ['--shutdown-timeout-ms', String(shutdownTimeoutMs)],
  });
  return { gateway, sim, db };
}

function chatRequest(url: string, content: string): Promise<Response> {
  return fetch(`${url}/s/shutdown/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', stream: true, messages: [{ role: 'user', content }] }),
  });
}

/** Reads a stream to its end: the text received and whether the connection ended normally. */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>, first: string): Promise<{ text: string; endedNormally: boolean }> {
  const decoder = new TextDecoder();
  let text = first;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    return { text, endedNormally: true };
  } catch {
    return { text, endedNormally: false };
  }
}

/** The content a chat stream carried, joined from its deltas. */
function streamedContent(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => {
      const chunk = JSON.parse(line.slice('data: '.length)) as { choices?: Array<{ delta?: { content?: string } }> };
      return chunk.choices?.[0]?.delta?.content ?? '';
    })
    .join('');
}

/** A request sent while draining: refused, either at the socket (no longer listening) or with 503 in OpenAI's shape. */
async function expectRefused(url: string): Promise<void> {
  const outcome = await chatRequest(url, 'short').then(
    async (response) => ({ status: response.status, body: (await response.json()) as unknown }),
    (error: unknown) => ({ code: ((error as Error).cause as { code?: string } | undefined)?.code }),
  );
  if ('status' in outcome)
    expect(outcome).toEqual({ status: 503, body: { error: expect.objectContaining({ code: 'TT_SHUTTING_DOWN', type: 'api_error' }) } });
  else expect(outcome.code).toBe('ECONNREFUSED');
}

describe('tokentap serve shuts down gracefully', () => {
  it('on SIGTERM refuses new calls, lets the running stream finish in full, records it ok with exact ids and exits 0', async () => {
    const { gateway, sim, db } = await startServe(30_000);
    const response = await chatRequest(gateway.url, 'short');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    gateway.child.kill('SIGTERM');
    await gateway.waitForLine('draining');
    await expectRefused(gateway.url);
    const { text, endedNormally } = await readRest(reader, first);
    expect(endedNormally).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(streamedContent(text)).toBe(SHORT_REPLY);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const store = openStore({ path: db, readonly: true });
    const calls = store.listCalls('shutdown');
    store.close();
    const record = sim.log[0]!;
    expect(calls).toHaveLength(1); // the refused request was never recorded
    expect(calls[0]).toMatchObject({ status: 'ok', id: response.headers.get('x-tokentap-call-id'), flags: [] });
    expect(Array.from(calls[0]!.promptTokenIds!)).toEqual(record.promptTokenIds);
    expect(Array.from(calls[0]!.completionTokenIds!)).toEqual(record.completionTokenIds);
    expect(Array.from(calls[0]!.completionLogprobs!)).toEqual(record.logprobs.map((logprob) => Math.fround(logprob)));
  });

  it("answers a request arriving on an open connection during the drain with 503 TT_SHUTTING_DOWN in OpenAI's shape and closes that connection", async () => {
    const { gateway, db } = await startServe(30_000);
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    let received = '';
    const firstBytes = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const body = (content: string, stream: boolean): string =>
      JSON.stringify({ model: 'Qwen/Qwen3-8B', stream, messages: [{ role: 'user', content }] });
    const request = (payload: string): string =>
      `POST /s/shutdown/v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
    socket.write(request(body('short', true)));
    await firstBytes; // the stream is under way on this connection, so the drain does not close it
    gateway.child.kill('SIGTERM');
    await gateway.waitForLine('draining');
    socket.write(request(body('short, again', false)));
    await ended;
    const [streamed, refused] = received.split(/(?=HTTP\/1\.1 503)/);
    expect(streamed).toContain('data: [DONE]');
    const [head, refusedBody] = refused!.split('\r\n\r\n');
    expect(head!.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(refusedBody!)).toEqual({ error: { message: expect.any(String), type: 'api_error', param: null, code: 'TT_SHUTTING_DOWN' } });
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const store = openStore({ path: db, readonly: true });
    expect(store.listCalls('shutdown').map((call) => [call.stream, call.status])).toEqual([[true, 'ok']]);
    store.close();
  });

  it('on SIGINT cuts a stream that outlasts shutdownTimeoutMs, records it aborted with the tokens sent, cancels the backend and exits 0', async () => {
    const { gateway, sim, db } = await startServe(200);
    const cancelled = new Promise<void>((resolve) => sim.on('cancel', () => resolve()));
    const response = await chatRequest(gateway.url, 'long');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    gateway.child.kill('SIGINT');
    const { text, endedNormally } = await readRest(reader, first);
    expect(endedNormally && text.includes('[DONE]')).toBe(false);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await cancelled;
    const store = openStore({ path: db, readonly: true });
    const [call, ...others] = store.listCalls('shutdown');
    store.close();
    const record = sim.log[0]!;
    expect(others).toEqual([]);
    expect(call).toMatchObject({ status: 'aborted', id: response.headers.get('x-tokentap-call-id') });
    const sent = Array.from(call!.completionTokenIds ?? []);
    expect(sent.length).toBeLessThan(record.completionTokenIds.length);
    expect(sent).toEqual(record.completionTokenIds.slice(0, sent.length));
    expect(Array.from(call!.promptTokenIds!)).toEqual(record.promptTokenIds);
  });
});
