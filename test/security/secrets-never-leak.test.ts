import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { constants, inflateSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { createLogger } from '../../gateway/create-logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { BODY_ENDPOINTS } from '../gateway/hostile-input/hostile-endpoints.js';

const HARNESS_BEARER = 'sk-secret-xyz-harness-openai-key';
const HARNESS_API_KEY = 'sk-ant-secret-xyz-harness-key';
const BACKEND_KEY = 'backend-key-secret-0123456789';
const ADMIN_TOKEN = 'admin-token-secret-0123456789';
const SECRETS = [HARNESS_BEARER, HARNESS_API_KEY, BACKEND_KEY, ADMIN_TOKEN];

let sim: SimBackend;
let gateway: Gateway;
let url: string;
const logLines: string[] = [];
const backendHeaders: IncomingHttpHeaders[] = [];
const temp = makeTempDir();
const FRONT_DOORS = BODY_ENDPOINTS.filter((endpoint) => endpoint.protocol !== 'admin');

beforeAll(async () => {
  sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ times: 'forever', content: 'fine' }] } });
  sim.app.addHook('onRequest', async (request) => {
    backendHeaders.push(request.headers);
  });
  const simUrl = await sim.listen();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  // the most talkative level: whatever tokentap ever logs is in these lines
  const logger = createLogger({ level: 'trace', destination, secrets: [BACKEND_KEY, ADMIN_TOKEN] });
  gateway = createGateway({ backendUrl: simUrl, backendKey: BACKEND_KEY, adminToken: ADMIN_TOKEN, db: temp.file('tokentap.db'), port: 0, logger });
  url = await gateway.listen();
});
afterAll(async () => {
  await sim.close();
  temp.remove();
});

async function post(path: string, headers: Record<string, string>, body: unknown): Promise<number> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

/** Every stored byte, raw and inflated where a column is compressed, as latin1 text to search. */
function storedText(directory: string): string {
  const parts: string[] = [];
  for (const name of readdirSync(directory)) {
    const bytes = readFileSync(`${directory}/${name}`);
    parts.push(bytes.toString('latin1'));
  }
  return parts.join('\n');
}

describe('harness API keys and configured secrets are never stored, logged or forwarded', () => {
  it('sends both harness keys through every front door, streaming and not, and a failing call', async () => {
    const harness = { authorization: `Bearer ${HARNESS_BEARER}`, 'x-api-key': HARNESS_API_KEY };
    for (const endpoint of FRONT_DOORS) {
      expect(await post(endpoint.path, harness, endpoint.valid), endpoint.name).toBe(200);
      if (endpoint.name !== 'count_tokens')
        expect(await post(endpoint.path, harness, { ...endpoint.valid, stream: true }), `${endpoint.name} stream`).toBe(200);
    }
    expect((await fetch(`${url}/v1/models`, { headers: harness })).status).toBe(200);
    // a call the backend refuses, so error paths log too
    expect(
      await post('/s/hostile/v1/chat/completions', harness, { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10_000_000 }),
    ).toBe(400);
    // the admin token used as a harness key, and on the rollout API
    expect(await post('/s/admin-as-key/v1/chat/completions', { authorization: `Bearer ${ADMIN_TOKEN}` }, FRONT_DOORS[0]?.valid)).toBe(200);
    const created = await fetch(`${url}/tokentap/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(created.status).toBe(201);
    // a wrong admin token, logged as a rejection
    expect((await fetch(`${url}/tokentap/v1/state`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })).status).toBe(401);
  });

  it('the backend saw only its own key, never a harness key', () => {
    expect(backendHeaders.length).toBeGreaterThan(10);
    for (const headers of backendHeaders) {
      expect(headers.authorization).toBe(`Bearer ${BACKEND_KEY}`);
      expect(headers['x-api-key']).toBeUndefined();
    }
    const seen = JSON.stringify(backendHeaders);
    for (const secret of [HARNESS_BEARER, HARNESS_API_KEY, ADMIN_TOKEN]) expect(seen).not.toContain(secret);
  });

  it('no secret is in the logs, which did log those requests', () => {
    const logs = logLines.join('');
    expect(logs).toMatch(/incoming request/);
    expect(logs).toMatch(/rollout API request rejected/);
    for (const secret of SECRETS) expect(logs, secret).not.toContain(secret);
  });

  it('no secret is in the stored rows (bodies and metadata decoded) nor anywhere in the database files', async () => {
    const store = gateway.store;
    const rows = store.listSessions({ limit: 1000 }).map((session) => ({
      session,
      rollout: store.getRollout(session.id),
      calls: store.listCalls(session.id).map((call) => ({ call, bodies: store.getCallBodies(call.id) })),
    }));
    expect(rows.flatMap((row) => row.calls).length).toBeGreaterThanOrEqual(10);
    const decoded = JSON.stringify(rows);
    for (const secret of SECRETS) expect(decoded, secret).not.toContain(secret);
    expect(decoded).toContain('user-agent');

    await gateway.close();
    const files = storedText(temp.path);
    expect(files.length).toBeGreaterThan(4096);
    for (const secret of SECRETS) {
      expect(files, secret).not.toContain(secret);
      // compressed columns hide text from a byte search: inflate every deflate stream found in the file too
      expect(inflatedText(temp.path), secret).not.toContain(secret);
    }
  });
});

/** Inflates from every zlib header in the database files (store/compress-json.ts deflates bodies). */
function inflatedText(directory: string): string {
  const found: string[] = [];
  for (const name of readdirSync(directory)) {
    const bytes = readFileSync(`${directory}/${name}`);
    for (let index = 0; index < bytes.length - 2; index += 1) {
      if (bytes[index] !== 0x78 || ![0x01, 0x5e, 0x9c, 0xda].includes(bytes[index + 1] as number)) continue;
      try {
        found.push(inflateSync(bytes.subarray(index), { finishFlush: constants.Z_SYNC_FLUSH }).toString('latin1'));
      } catch {
        // not the start of a stream
      }
    }
  }
  return found.join('\n');
}
