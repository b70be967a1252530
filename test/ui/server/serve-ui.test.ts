import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../../gateway/create-gateway.js';
import { SseDecoder } from '../../../core/sse/sse-decoder.js';
import type { ViewerSummary } from '../../../ui/viewer-api.js';
import { recordViewerFixture, type ViewerFixture } from '../../helpers/record-viewer-fixture.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';

const ADMIN_TOKEN = 'viewer-test-admin-token-0123456789';

describe('tokentap serve --ui: the viewer on a live gateway', () => {
  let fixture: ViewerFixture;
  let baseUrl: string;
  beforeAll(async () => {
    fixture = await recordViewerFixture({ keepGateway: true, gatewayOptions: { ui: true, adminToken: ADMIN_TOKEN } });
    const address = fixture.gateway!.app.server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${address.port}`;
  }, 60_000);
  afterAll(async () => {
    await fixture?.remove();
  });

  it("asks for the admin token on its API (the rollout API's 401 shape), never on its pages", async () => {
    const refused = await fetch(`${baseUrl}/ui/api/summary`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: 'TT_UNAUTHORIZED', message: expect.any(String) } });
    const wrong = await fetch(`${baseUrl}/ui/api/sessions`, { headers: { authorization: 'Bearer not-the-admin-token-at-all' } });
    expect(wrong.status).toBe(401);
    const answered = await fetch(`${baseUrl}/ui/api/summary`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(answered.status).toBe(200);
    const summary = (await answered.json()) as ViewerSummary;
    expect(summary).toMatchObject({
      live: true,
      sessions: fixture.gateway!.store.stats().sessions,
      store: { engine: 'sqlite', where: fixture.dbPath },
    });
    // the pages hold no data: no token asked (not built in a source checkout: the 503 page says so)
    const page = await fetch(`${baseUrl}/ui/`);
    expect([200, 503]).toContain(page.status);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const redirect = await fetch(`${baseUrl}/ui`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/ui/');
  });

  it("puts the viewer's routes into the gateway's OpenAPI document, and its own document holds only them", async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const gatewayDocument = (await (await fetch(`${baseUrl}/tokentap/v1/openapi.json`, { headers })).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(gatewayDocument.paths)).toEqual(
      expect.arrayContaining(['/tokentap/v1/sessions', '/ui/api/sessions', '/ui/api/sessions/{id}/samples/{strategy}/{index}']),
    );
    const viewerDocument = (await (await fetch(`${baseUrl}/ui/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(viewerDocument.paths);
    expect(paths.length).toBeGreaterThanOrEqual(9);
    expect(paths.every((path) => path.startsWith('/ui/api/'))).toBe(true);
  });

  it('sends a change event with the new counts when the gateway records a call, and ends the stream when the gateway closes', async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/ui/api/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new SseDecoder();
    const before = fixture.gateway!.store.stats().calls;
    // any call is recorded, even one the simulator's script refuses
    await fetch(`${baseUrl}/s/viewer-live/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: fixture.model, messages: [{ role: 'user', content: 'unscripted' }] }),
    });
    let change: ViewerSummary | null = null;
    while (change === null) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before a change');
      for (const event of decoder.push(value)) if (event.event === 'change') change = JSON.parse(event.data) as ViewerSummary;
    }
    expect(change).toMatchObject({ calls: before + 1, live: true });
    // closing the gateway ends the open stream instead of waiting on it
    await fixture.gateway!.close();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    controller.abort();
  });
});

describe('tokentap serve --ui: who may read', () => {
  it('off loopback without an admin token the API is refused; on loopback without one it is open', async () => {
    const temp = makeTempDir('tokentap-viewer-auth-');
    try {
      for (const [host, status] of [
        ['0.0.0.0', 401],
        ['127.0.0.1', 200],
      ] as const) {
        const gateway = createGateway({ backendUrl: 'http://127.0.0.1:9', db: temp.file(`${status}.db`), host, ui: true, logLevel: 'silent' });
        try {
          const response = await gateway.app.inject({ method: 'GET', url: '/ui/api/summary' });
          expect(response.statusCode, host).toBe(status);
          if (status === 401)
            expect(response.json()).toEqual({ error: { code: 'TT_UNAUTHORIZED', message: expect.stringContaining('--admin-token') } });
        } finally {
          await gateway.close();
        }
      }
      const off = createGateway({ backendUrl: 'http://127.0.0.1:9', db: temp.file('off.db'), logLevel: 'silent' });
      try {
        expect((await off.app.inject({ method: 'GET', url: '/ui/api/summary' })).statusCode).toBe(404);
      } finally {
        await off.close();
      }
    } finally {
      temp.remove();
    }
  });

  it("decodes token texts with --model-dir's tokenizer, and without one (or with a folder that has none) shows ids", async () => {
    const temp = makeTempDir('tokentap-viewer-model-dir-');
    try {
      for (const [modelDir, tokenText] of [
        [qwen3TokenizerDir(), true],
        [temp.path, false],
        [undefined, false],
      ] as const) {
        const gateway = createGateway({
          backendUrl: 'http://127.0.0.1:9',
          db: temp.file(`${String(tokenText)}-${modelDir === undefined ? 'none' : 'dir'}.db`),
          ui: true,
          logLevel: 'silent',
          ...(modelDir === undefined ? {} : { modelDir }),
        });
        try {
          const summary = (await gateway.app.inject({ method: 'GET', url: '/ui/api/summary' })).json() as ViewerSummary;
          expect(summary.tokenText, String(modelDir)).toBe(tokenText);
        } finally {
          await gateway.close();
        }
      }
    } finally {
      temp.remove();
    }
  });
});
