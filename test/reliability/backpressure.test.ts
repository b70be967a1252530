import { afterEach, describe, expect, it, vi } from 'vitest';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';

/**
 * Promise 4 of issue #7 (docs/reliability.md, "4. Load"): a harness that reads slowly, or not at all, makes the
 * gateway stop reading the backend instead of buffering the stream in memory. The reply is 20,000 tokens with 20
 * alternatives each (about 33 MB to the harness, more from the backend): far more than the kernel's socket buffers
 * on loopback hold (a few MB each way), so a gateway that ignored `write()` returning false would have to hold the
 * rest itself, and the simulator would finish writing while the harness read nothing.
 */
const REPLY_TOKENS = 20_000;
const REPLY_TEXT = Array.from({ length: 4_000 }, (_, index) => `Word number ${index} goes here.`).join(' ');

let setup: GatewayWithSim | undefined;

afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** What the test sees of one exchange on a server: its response object and whether it was written out in full. */
interface Watched {
  response: ServerResponse | undefined;
  finished: boolean;
  /** the largest `writableLength` seen just before a `write()`: what the process held unsent when it wrote more */
  largestBufferBeforeWrite: number;
}

/** Watches the next request a node HTTP server answers, counting what it buffers in user space before each write. */
function watchNextResponse(server: {
  on(event: 'request', listener: (request: IncomingMessage, response: ServerResponse) => void): unknown;
}): Watched {
  const watched: Watched = { response: undefined, finished: false, largestBufferBeforeWrite: 0 };
  server.on('request', (_request, response) => {
    if (watched.response !== undefined) return;
    watched.response = response;
    response.once('finish', () => {
      watched.finished = true;
    });
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    (response as unknown as { write: (...args: unknown[]) => boolean }).write = (...args) => {
      watched.largestBufferBeforeWrite = Math.max(watched.largestBufferBeforeWrite, response.writableLength);
      return write(...args);
    };
  });
  return watched;
}

async function startLongReply(): Promise<GatewayWithSim> {
  // unpaced fast mode: the simulator writes as fast as the gateway takes it
  setup = await startGatewayWithSim({ fast: true, script: { replies: [{ text: REPLY_TEXT, finishReason: 'length', times: 'forever' }] } });
  return setup;
}

/** Sends a streamed chat call and resolves with the response, not reading its body (it starts paused). */
async function openStream(url: string, session: string): Promise<IncomingMessage> {
  const body = JSON.stringify({
    model: 'Qwen/Qwen3-8B',
    stream: true,
    max_tokens: REPLY_TOKENS,
    logprobs: true,
    top_logprobs: 20,
    messages: [{ role: 'user', content: 'Write a very long answer.' }],
  });
  const request = httpRequest(`${url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  request.end(body);
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  return response;
}

/** The content tokens of an OpenAI chat stream, its finish reason and whether it ended with `data: [DONE]`. */
function readChatStream(text: string): { contentChunks: number; finishReason: string | null; done: boolean } {
  const events = text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event !== '');
  let contentChunks = 0;
  let finishReason: string | null = null;
  for (const event of events) {
    if (event === 'data: [DONE]') continue;
    const chunk = JSON.parse(event.slice('data: '.length)) as { choices?: Array<{ delta?: { content?: string }; finish_reason?: string | null }> };
    const choice = chunk.choices?.[0];
    if ((choice?.delta?.content ?? '') !== '') contentChunks++;
    finishReason = choice?.finish_reason ?? finishReason;
  }
  return { contentChunks, finishReason, done: events.at(-1) === 'data: [DONE]' };
}

describe('backpressure from a slow harness', () => {
  it('stops reading the backend while the harness reads nothing, then delivers and records the whole stream once it reads', async () => {
    const { sim, gateway, url } = await startLongReply();
    const atBackend = watchNextResponse(sim.app.server);
    const atGateway = watchNextResponse(gateway.app.server);
    const response = await openStream(url, 'slow-reader');
    expect(response.statusCode).toBe(200);

    // the whole chain stalls: the gateway's socket to the harness is full and so is the simulator's to the gateway
    await vi.waitFor(
      () => {
        if (atBackend.finished) throw new Error('stop polling: the simulator wrote its whole stream');
        expect(atGateway.response?.writableNeedDrain).toBe(true);
        expect(atBackend.response?.writableNeedDrain).toBe(true);
      },
      { timeout: 60_000, interval: 20 },
    );
    expect(atBackend.finished).toBe(false);
    const backendBytesAtStall = atBackend.response!.socket!.bytesWritten;
    // the gateway never wrote more to the harness while earlier bytes were still queued in its own memory
    expect(atGateway.largestBufferBeforeWrite).toBeLessThan(atGateway.response!.writableHighWaterMark);

    // the harness now reads everything
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const stream = readChatStream(text);
    expect(stream).toEqual({ contentChunks: REPLY_TOKENS, finishReason: 'length', done: true });
    expect(atBackend.finished).toBe(true);
    // at the stall the simulator had sent a fraction of what it sent in the end
    expect(backendBytesAtStall).toBeLessThan(Buffer.byteLength(text) / 2);
    expect(atGateway.largestBufferBeforeWrite).toBeLessThan(atGateway.response!.writableHighWaterMark);

    const callId = response.headers['x-tokentap-call-id'] as string;
    const generated = sim.log.at(-1)!;
    // committed before the stream's last event was written
    const row = gateway.store.getCall(callId)!;
    expect(row.status).toBe('ok');
    expect(row.finishReason).toBe('length');
    expect(Array.from(row.completionTokenIds ?? [])).toEqual(generated.completionTokenIds);
    expect(row.completionTokenIds).toHaveLength(REPLY_TOKENS);
    expect(Array.from(row.promptTokenIds ?? [])).toEqual(generated.promptTokenIds);
    expect(Array.from(row.completionLogprobs ?? [])).toEqual(generated.logprobs.map((logprob) => Math.fround(logprob)));
  }, 120_000);

  it('cancels the backend request and records the call aborted when a stalled harness leaves', async () => {
    const { sim, gateway, url } = await startLongReply();
    const atBackend = watchNextResponse(sim.app.server);
    const atGateway = watchNextResponse(gateway.app.server);
    const cancelled = new Promise<void>((resolve) => sim.on('cancel', () => resolve()));
    const response = await openStream(url, 'leaves-while-stalled');
    await vi.waitFor(
      () => {
        if (atBackend.finished) throw new Error('stop polling: the simulator wrote its whole stream');
        expect(atGateway.response?.writableNeedDrain).toBe(true);
        expect(atBackend.response?.writableNeedDrain).toBe(true);
      },
      { timeout: 60_000, interval: 20 },
    );

    response.destroy();
    await cancelled;
    const callId = response.headers['x-tokentap-call-id'] as string;
    const row = await vi.waitUntil(
      () => {
        const call = gateway.store.getCall(callId);
        return call?.status === 'in_progress' ? null : call;
      },
      { timeout: 10_000 },
    );
    expect(row?.status).toBe('aborted');
    expect(atBackend.finished).toBe(false);
    const generated = sim.log.at(-1)!;
    expect(generated.cancelled).toBe(true);
    // what was relayed before the harness left is kept, a prefix of what the simulator generated
    const kept = Array.from(row?.completionTokenIds ?? []);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(REPLY_TOKENS);
    expect(kept).toEqual(generated.completionTokenIds.slice(0, kept.length));
  }, 120_000);
});
