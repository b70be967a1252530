import { describe, expect, it } from 'vitest';
import type { SimBackend, SimFault, SimGenerationRecord } from '../../sim/index.js';
import { postJson, ssePayloads, startSim } from './sim-test-helpers.js';

const ASK = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'Count to ten.' }] };
const STREAM_ASK = { ...ASK, stream: true, return_token_ids: true };
const WORDS = 'one two three four five six seven eight nine ten';

function scriptWith(fault: SimFault) {
  return { replies: [{ content: WORDS, fault }] };
}

function nextCancel(sim: SimBackend): Promise<SimGenerationRecord> {
  return new Promise((resolve) => sim.on('cancel', resolve));
}

/** Reads a body chunk by chunk until it ends or fails. */
async function readAll(response: Response): Promise<{ text: string; chunks: number; failed: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, chunks, failed: false };
      chunks++;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, chunks, failed: true };
  }
}

function tokenChunkCount(text: string): number {
  return ssePayloads(text).filter((payload) => payload.includes('"token_ids":[')).length;
}

describe('faults', () => {
  it('refuse: the socket closes without an answer', async () => {
    const { sim, url } = await startSim({ script: scriptWith({ kind: 'refuse' }) });
    try {
      await expect(postJson(`${url}/v1/chat/completions`, ASK)).rejects.toThrow();
      expect(sim.log[0]).toMatchObject({ fault: { kind: 'refuse' }, status: 0, cancelled: false, completionTokenIds: [] });
    } finally {
      await sim.close();
    }
  });

  it('http-error (as an option for every request): 429 with Retry-After and a vLLM-shaped body', async () => {
    const fault: SimFault = { kind: 'http-error', status: 429, headers: { 'retry-after': '2' }, message: 'slow down' };
    const { sim, url } = await startSim({ fault });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, ASK);
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.json()).toEqual({ error: { message: 'slow down', type: 'TooManyRequestsError', param: null, code: 429 } });
      expect((await postJson(`${url}/v1/completions`, { prompt: 'x' })).status).toBe(429);
      expect(sim.log.map((record) => record.status)).toEqual([429, 429]);
    } finally {
      await sim.close();
    }
  });

  it('stall-headers: nothing is sent, and the client giving up is recorded as a cancellation', async () => {
    const { sim, url } = await startSim({ script: scriptWith({ kind: 'stall-headers' }) });
    try {
      const controller = new AbortController();
      sim.on('generation', () => controller.abort());
      const cancel = nextCancel(sim);
      const request = fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ASK),
        signal: controller.signal,
      });
      await expect(request).rejects.toThrow();
      expect(await cancel).toMatchObject({ cancelled: true, fault: { kind: 'stall-headers' }, status: 0 });
    } finally {
      await sim.close();
    }
  });

  it('slow-body: the JSON body trickles in small pieces and arrives whole', async () => {
    const { sim, url } = await startSim({ script: scriptWith({ kind: 'slow-body', delayMs: 2, chunkBytes: 100 }) });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, ASK);
      const { text, chunks, failed } = await readAll(response);
      expect(failed).toBe(false);
      expect(chunks).toBeGreaterThan(1);
      expect(JSON.parse(text).choices[0].message.content).toBe(WORDS);
      expect(sim.log[0]?.cancelled).toBe(false);
    } finally {
      await sim.close();
    }
  });

  it('cut-stream: the socket is destroyed after N token chunks', async () => {
    const { sim, url } = await startSim({ script: scriptWith({ kind: 'cut-stream', afterTokens: 3 }) });
    try {
      const { text, failed } = await readAll(await postJson(`${url}/v1/chat/completions`, STREAM_ASK));
      expect(failed).toBe(true);
      expect(tokenChunkCount(text)).toBe(3);
      expect(text).not.toContain('[DONE]');
      expect(sim.log[0]).toMatchObject({ fault: { kind: 'cut-stream', afterTokens: 3 }, cancelled: false });
      expect(sim.log[0]!.completionTokenIds.length).toBeGreaterThan(3);
    } finally {
      await sim.close();
    }
  });

  it('malformed-json: one chunk is cut-off JSON, the rest of the stream is fine', async () => {
    const { sim, url } = await startSim({ script: scriptWith({ kind: 'malformed-json', afterTokens: 1 }) });
    try {
      const payloads = ssePayloads(await (await postJson(`${url}/v1/chat/completions`, STREAM_ASK)).text());
      const broken = payloads.filter((payload) => {
        if (payload === '[DONE]') return false;
        try {
          JSON.parse(payload);
          return false;
        } catch {
          return true;
        }
      });
      expect(broken).toHaveLength(1);
      expect(payloads[2]).toBe(broken[0]);
      expect(payloads.at(-1)).toBe('[DONE]');
    } finally {
      await sim.close();
    }
  });

  it('malformed-sse: events lose their blank-line separators', async () => {
    const { sim, url } = await startSim({ script: scriptWith({ kind: 'malformed-sse', afterTokens: 0 }) });
    try {
      const text = await (await postJson(`${url}/v1/chat/completions`, STREAM_ASK)).text();
      const events = text.split('\n\n').filter((event) => event !== '');
      expect(events).toHaveLength(2);
      expect(events[1]).toContain('this line has no field\n');
      expect(events[1]!.split('\n').filter((line) => line.startsWith('data: ')).length).toBeGreaterThan(2);
    } finally {
      await sim.close();
    }
  });

  it('wrong-token-ids: the reported ids disagree with the tokens', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ times: 2, content: WORDS, fault: { kind: 'wrong-token-ids' } }] } });
    try {
      const body = (await (await postJson(`${url}/v1/chat/completions`, { ...ASK, return_token_ids: true })).json()) as Record<string, any>;
      expect(body.choices[0].token_ids).toHaveLength(body.usage.completion_tokens + 1);
      const text = await (await postJson(`${url}/v1/chat/completions`, STREAM_ASK)).text();
      const streamedIds = ssePayloads(text)
        .filter((payload) => payload !== '[DONE]')
        .flatMap((payload) => (JSON.parse(payload).choices[0]?.token_ids ?? []) as number[]);
      expect(streamedIds).toHaveLength(sim.log[1]!.completionTokenIds.length + 1);
    } finally {
      await sim.close();
    }
  });
});

describe('cancellation', () => {
  it('notices a client that stops reading a paced stream and closes the connection', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ content: WORDS }] }, tokensPerSecond: 50 });
    try {
      const controller = new AbortController();
      const cancel = nextCancel(sim);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(STREAM_ASK),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      const record = await cancel;
      expect(record.cancelled).toBe(true);
      expect(sim.log[0]).toBe(record);
    } finally {
      await sim.close();
    }
  });

  it('notices a cancelled non-streamed request while it is still generating', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ content: WORDS }] }, tokensPerSecond: 5 });
    try {
      const controller = new AbortController();
      sim.on('generation', () => controller.abort());
      const cancel = nextCancel(sim);
      const request = fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ASK),
        signal: controller.signal,
      });
      await expect(request).rejects.toThrow();
      expect((await cancel).cancelled).toBe(true);
    } finally {
      await sim.close();
    }
  });

  it('does not count a completed response as cancelled', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ content: WORDS }] } });
    try {
      await (await postJson(`${url}/v1/chat/completions`, STREAM_ASK)).text();
      await sim.close();
      expect(sim.log[0]?.cancelled).toBe(false);
    } finally {
      await sim.close();
    }
  });
});
