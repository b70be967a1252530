import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBenchSessions } from '../../../bench/make-store.js';
import { ERROR_CODES } from '../../../core/errors/error-codes.js';
import { isTokentapError } from '../../../core/errors/tokentap-error.js';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { openStore, type Store } from '../../../store/index.js';
import { createViewerApp } from '../../../ui/server/create-viewer-app.js';
import { ViewerThread, viewerWorkerUrl } from '../../../ui/server/viewer-thread.js';
import { closedPort } from '../../helpers/closed-port.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { acquireMigratedDatabase, postgresAvailable, releaseMigratedDatabase } from '../../helpers/test-postgres.js';

const ADMIN_TOKEN = 'viewer-thread-admin-token-0123456789';
const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
const silentLog = { warn: () => undefined, error: () => undefined } as never;

// npm test builds first; the thread runs the compiled script
const workerUrl = viewerWorkerUrl();
if (workerUrl === null) throw new Error('dist/ui/server/viewer-worker.js is missing: npm run build first');

describe("serve --ui: the viewer's API on a thread of its own (uiInWorker)", () => {
  const temp = makeTempDir();
  const db = temp.file('viewer-thread.db');
  let gateway: Gateway;
  let url: string;
  let reader: Store;
  beforeAll(async () => {
    // enough recorded sessions that a stats page takes the viewer a while (every session reconstructed and verified)
    const store = openStore({ path: db });
    writeBenchSessions(store, { sessions: 300, turns: 16, systemTokens: 4000, turnTokens: 300, driftRate: 0.05 });
    store.close();
    gateway = createGateway({ backendUrl: 'http://127.0.0.1:9', db, port: 0, ui: true, adminToken: ADMIN_TOKEN, logLevel: 'silent' });
    url = await gateway.listen();
    reader = openStore({ path: db, readonly: true });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    reader?.close();
    temp.remove();
  });

  it('answers every route as the viewer on the gateway thread does: bodies, errors and their status', async () => {
    const onThisThread = createViewerApp({ store: reader, storeLocation: db, live: true });
    const sessionId = reader.listSessions({ limit: 1 })[0]!.id;
    const routes = [
      '/ui/api/summary',
      '/ui/api/sessions?limit=20&sort=callCount',
      '/ui/api/sessions?drift=history-edited',
      `/ui/api/sessions/${encodeURIComponent(sessionId)}`,
      `/ui/api/sessions/${encodeURIComponent(sessionId)}/samples/merge/0`,
      `/ui/api/calls/${encodeURIComponent(reader.listCalls(sessionId)[0]!.id)}`,
      '/ui/api/groups',
      '/ui/api/stats?strategy=per-call',
      '/ui/api/sessions/no-such-session',
      '/ui/api/sessions?limit=0',
      '/ui/api/sessions?bogus=1',
    ];
    for (const route of routes) {
      const expected = await onThisThread.inject({ url: route });
      const answered = await fetch(`${url}${route}`, { headers });
      expect({ route, status: answered.status, body: await answered.text() }).toEqual({ route, status: expected.statusCode, body: expected.body });
      expect(answered.headers.get('content-type')).toBe(expected.headers['content-type']);
      expect(answered.headers.get('cache-control')).toBe('no-store');
    }
    await onThisThread.close();
    // authorization stays the gateway's: no token, no answer
    expect((await fetch(`${url}/ui/api/summary`)).status).toBe(401);
  }, 60_000);

  it("keeps the gateway answering while a heavy page is read: /healthz comes back before the page's answer", async () => {
    // the thread is up (the test before started it); the page reconstructs and verifies all 300 sessions
    const order: string[] = [];
    const page = fetch(`${url}/ui/api/stats`, { headers }).then(async (response) => {
      expect(response.status).toBe(200);
      await response.json();
      order.push('page');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let index = 0; index < 3; index++) {
      // 503: this gateway's backend is not there; answered is what counts
      const health = await fetch(`${url}/healthz`);
      expect(((await health.json()) as { status: string }).status).toBeTypeOf('string');
      order.push('healthz');
    }
    await page;
    // on the gateway's event loop (uiInWorker: false) the page holds it: page first, then the three
    expect(order).toEqual(['healthz', 'healthz', 'healthz', 'page']);
  }, 60_000);

  it('refuses a request past maxWaiting with TT_RATE_LIMITED, and takes the next once the queue has room', async () => {
    const thread = new ViewerThread({ db, log: silentLog, workerUrl, maxWaiting: 1 });
    expect((await thread.answer('GET', '/ui/api/summary')).statusCode).toBe(200);
    const heavy = thread.answer('GET', '/ui/api/stats');
    await expect(thread.answer('GET', '/ui/api/summary')).rejects.toSatisfy((error) => isTokentapError(error, 'TT_RATE_LIMITED'));
    expect((await heavy).statusCode).toBe(200);
    expect((await thread.answer('GET', '/ui/api/summary')).statusCode).toBe(200);
    await thread.close();
  }, 60_000);

  it('a thread that dies fails the request it held, and the next request starts another', async () => {
    const thread = new ViewerThread({ db, log: silentLog, workerUrl });
    expect((await thread.answer('GET', '/ui/api/summary')).statusCode).toBe(200);
    const first = thread.worker!;
    const held = thread.answer('GET', '/ui/api/stats').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await first.terminate();
    expect(String(await held)).toContain("the viewer's thread stopped while it answered");
    expect(thread.running).toBe(false);
    const again = await thread.answer('GET', '/ui/api/groups');
    expect(again.statusCode).toBe(200);
    expect(thread.worker).not.toBe(first);
    await thread.close();
  }, 60_000);

  it("the viewer's routes answer a thread that died mid-request with a 500 in the viewer's shape, and the next request with 200", async () => {
    const thread = new ViewerThread({ db, log: silentLog, workerUrl });
    // the routes the gateway registers (registerViewer), forwarding to the thread after authorize
    const app = createViewerApp({ store: reader, storeLocation: db, live: true, remote: thread });
    try {
      expect((await app.inject({ url: '/ui/api/summary' })).statusCode).toBe(200);
      const first = thread.worker!;
      const held = app.inject({ url: '/ui/api/stats' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await first.terminate();
      const failed = await held;
      expect(failed.statusCode).toBe(500);
      expect(failed.headers['content-type']).toMatch(/^application\/json/);
      // the thread's own message (a path, a stack) stays in the log
      expect(failed.json()).toEqual({ error: { code: 'TT_INTERNAL', message: ERROR_CODES.TT_INTERNAL.message } });
      expect(failed.headers['cache-control']).toBe('no-store');
      const again = await app.inject({ url: '/ui/api/groups' });
      expect(again.statusCode).toBe(200);
      expect(thread.worker).not.toBe(first);
    } finally {
      await app.close();
      await thread.close();
    }
  }, 60_000);
});

describe('ViewerThread', () => {
  it('starts at the first request, answers it, and after close() refuses with TT_SHUTTING_DOWN', async () => {
    const temp = makeTempDir();
    const db = temp.file('lazy.db');
    openStore({ path: db }).close();
    const thread = new ViewerThread({ db, log: silentLog, workerUrl });
    expect(thread.running).toBe(false);
    const answer = await thread.answer('GET', '/ui/api/summary');
    expect(thread.running).toBe(true);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ sessions: 0, calls: 0, live: true, store: { engine: 'sqlite', where: db } });
    await thread.close();
    expect(thread.running).toBe(false);
    await expect(thread.answer('GET', '/ui/api/summary')).rejects.toSatisfy((error) => isTokentapError(error, 'TT_SHUTTING_DOWN'));
    temp.remove();
  });

  it("fails a request with the store's own error when its store will not open, and tries again at the next", async () => {
    const temp = makeTempDir();
    const db = temp.file('not-yet.db');
    const thread = new ViewerThread({ db, log: silentLog, workerUrl });
    const refused = await thread.answer('GET', '/ui/api/summary').catch((error: unknown) => error);
    expect(isTokentapError(refused)).toBe(true);
    expect((refused as Error).message).toContain('not-yet.db');
    expect(thread.running).toBe(false);
    openStore({ path: db }).close();
    expect((await thread.answer('GET', '/ui/api/summary')).statusCode).toBe(200);
    await thread.close();
    temp.remove();
  });

  it.skipIf(!postgresAvailable())(
    'reads PostgreSQL on a connection of its own; a server that is not there is 503 TT_STORE_UNAVAILABLE, not an internal error',
    async () => {
      const url = acquireMigratedDatabase();
      const thread = new ViewerThread({ db: url, log: silentLog, workerUrl });
      try {
        const answer = await thread.answer('GET', '/ui/api/summary');
        expect(answer.statusCode).toBe(200);
        expect(JSON.parse(answer.body)).toMatchObject({ store: { engine: 'postgres' } });
      } finally {
        await thread.close();
        releaseMigratedDatabase(url);
      }
      const away = new ViewerThread({ db: `postgres://tt@127.0.0.1:${await closedPort()}/tokentap`, log: silentLog, workerUrl });
      const refused = await away.answer('GET', '/ui/api/summary').catch((error: unknown) => error);
      expect(isTokentapError(refused, 'TT_STORE_UNAVAILABLE')).toBe(true);
      await away.close();
    },
  );
});
