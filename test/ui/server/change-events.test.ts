import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { SseDecoder } from '../../../core/sse/sse-decoder.js';
import { openStore, type Store } from '../../../store/index.js';
import { createViewerApp } from '../../../ui/server/index.js';
import type { ViewerSummary } from '../../../ui/viewer-api.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { recordCall, sampleBeginInput } from '../../store/store-fixtures.js';

describe('tokentap ui: change events from the polled store', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(): Promise<{ writer: Store; app: FastifyInstance; url: string }> {
    const temp = makeTempDir('tokentap-viewer-events-');
    cleanups.push(() => temp.remove());
    const writer = openStore({ path: temp.file('tokentap.db') });
    cleanups.push(() => writer.close());
    const reader = openStore({ path: temp.file('tokentap.db'), readonly: true });
    cleanups.push(() => reader.close());
    const app = createViewerApp({ store: reader, storeLocation: temp.file('tokentap.db'), pollMs: 20 });
    cleanups.push(() => app.close());
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { writer, app, url };
  }

  /** Reads events until `count` changes came; the comments between are not events. */
  async function changes(reader: ReadableStreamDefaultReader<Uint8Array>, decoder: SseDecoder, count: number): Promise<ViewerSummary[]> {
    const seen: ViewerSummary[] = [];
    while (seen.length < count) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended after ${seen.length} changes`);
      for (const event of decoder.push(value)) if (event.event === 'change') seen.push(JSON.parse(event.data) as ViewerSummary);
    }
    return seen;
  }

  it('sends one change per change of the counts (a call begun, then ended), none while nothing changes, and ends the stream when the app closes', async () => {
    const { writer, app, url } = await start();
    const response = await fetch(`${url}/ui/api/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new SseDecoder();
    const { callId } = writer.beginCall(sampleBeginInput({ sessionId: 's-1', startedAt: 1000 }));
    const [begun] = await changes(reader, decoder, 1);
    expect(begun).toMatchObject({ sessions: 1, calls: 1, callStatuses: { in_progress: 1 }, live: false });
    recordCall(writer, { sessionId: 's-1', startedAt: 2000 });
    writer.markCallsIncomplete([callId]);
    const [ended] = await changes(reader, decoder, 1);
    expect(ended).toMatchObject({ calls: 2, lastCallAt: 2000 });
    expect(ended!.callStatuses).toEqual({ ok: 1, incomplete: 1 });
    // closing while the stream is open ends it instead of waiting on it
    await app.close();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // nothing changed since: no more change events, only what was in flight
      expect(decoder.push(value).filter((event) => event.event === 'change')).toEqual([]);
    }
  });

  it('sends a change for a reward posted alone, which moves none of the counts (the pages show rewards)', async () => {
    const { writer, url } = await start();
    recordCall(writer, { sessionId: 's-1', startedAt: 1000 });
    const response = await fetch(`${url}/ui/api/events`);
    const reader = response.body!.getReader();
    const decoder = new SseDecoder();
    // the stream's first mark was read as it opened (before its headers reached us)
    writer.addReward({ sessionId: 's-1', value: 1, source: 'library', createdAt: 2000 });
    const [rewarded] = await changes(reader, decoder, 1);
    expect(rewarded).toMatchObject({ sessions: 1, calls: 1, callStatuses: { ok: 1 } });
    await reader.cancel();
  });

  it('answers HEAD on the event stream at once, with its content type, opening no stream', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/ui/api/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('');
  });

  it('writes a heartbeat comment on a quiet stream every 15 s, no change event, and stops its timer when the client leaves', async () => {
    const { url } = await start();
    // only setInterval is faked, once the server listens (its own connection checks keep real timers): the stream's
    // heartbeat and poll, started as it opens, move when the test says; cleanups run newest first, so real timers return
    // before the app closes
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    cleanups.push(() => {
      vi.useRealTimers();
    });
    const response = await fetch(`${url}/ui/api/events`);
    const reader = response.body!.getReader();
    const text = new TextDecoder();
    let received = '';
    const readUntil = async (needle: string, times: number): Promise<void> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(needle)} x${times} within 2 s: ${JSON.stringify(received)}`)), 2000);
      });
      try {
        while (received.split(needle).length - 1 < times) {
          const { value, done } = await Promise.race([reader.read(), timeout]);
          if (done) throw new Error(`the stream ended after ${JSON.stringify(received)}`);
          received += text.decode(value, { stream: true });
        }
      } finally {
        clearTimeout(timer);
      }
    };
    await readUntil(': tokentap viewer events\n\n', 1);
    // the stream's heartbeat and the store's poll: two timers
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(15_000);
    await readUntil(': heartbeat\n\n', 1);
    vi.advanceTimersByTime(15_000);
    await readUntil(': heartbeat\n\n', 2);
    expect(received).toBe(': tokentap viewer events\n\n: heartbeat\n\n: heartbeat\n\n');
    await reader.cancel();
    // the server sees the socket close: the heartbeat's timer and, the last stream gone, the poll's are cleared
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(0));
  });

  it("summary's lastCallAt is the newest call's start even when a newer session has no call yet", async () => {
    const { writer, app } = await start();
    recordCall(writer, { sessionId: 'called', startedAt: 5000 });
    writer.createRollout({ sessionId: 'made-not-called', createdAt: 9000 });
    const summary = (await app.inject({ url: '/ui/api/summary' })).json() as ViewerSummary;
    expect(summary).toMatchObject({ sessions: 2, openSessions: 2, calls: 1, lastCallAt: 5000 });
  });
});
