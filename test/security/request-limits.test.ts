import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { gatewayConfigSchema } from '../../gateway/config/gateway-config.js';
import { BODY_ENDPOINTS, methodOf } from '../gateway/hostile-input/hostile-endpoints.js';
import { expectErrorShape } from '../gateway/hostile-input/protocol-shapes.js';
import { rawRequest } from '../gateway/hostile-input/raw-http.js';
import { storeFingerprint } from '../gateway/hostile-input/store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-security-tests-42';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function start(options: Record<string, unknown>): Promise<GatewayWithSim> {
  return startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } }, { adminToken: ADMIN_TOKEN, ...options });
}

/** A request with one header of `size` bytes, over a raw socket (fetch would not tell a 431 from a reset). */
function withBigHeader(url: string, size: number): ReturnType<typeof rawRequest> {
  const body = JSON.stringify(BODY_ENDPOINTS[0]?.valid);
  return rawRequest(
    url,
    `POST /s/limits/v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Padding: ${'p'.repeat(size)}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

describe('header size limit (maxHeaderSize)', () => {
  it("defaults to Node's 16 KiB: a 20 KiB header is 431 TT_HEADERS_TOO_LARGE in a shape every client reads", async () => {
    expect(gatewayConfigSchema.parse({}).maxHeaderSize).toBe(16 * 1024);
    setup = await start({});
    const before = storeFingerprint(setup.gateway.store);
    const answer = await withBigHeader(setup.url, 20 * 1024);
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: expect.any(String), code: 'TT_HEADERS_TOO_LARGE' },
    });
    expect(answer.head).toMatch(/\r\nconnection: close/i);
    expect(storeFingerprint(setup.gateway.store)).toBe(before);
    expect((await withBigHeader(setup.url, 8 * 1024)).status).toBe(200);
  });

  it('is configurable both ways: 64 KiB lets the 20 KiB header in, 4 KiB refuses an 8 KiB one', async () => {
    setup = await start({ maxHeaderSize: 64 * 1024 });
    expect((await withBigHeader(setup.url, 20 * 1024)).status).toBe(200);
    await setup.close();
    setup = await start({ maxHeaderSize: 4096 });
    expect((await withBigHeader(setup.url, 8 * 1024)).status).toBe(431);
  });
});

describe('body size limit (bodyLimit)', () => {
  it('a body one byte over the limit is 413 in each protocol shape, and one at the limit is read', async () => {
    setup = await start({ bodyLimit: 4096 });
    for (const endpoint of BODY_ENDPOINTS) {
      const valid = JSON.stringify(endpoint.valid);
      const padded = (length: number): string => valid.replace(/}$/, `,"metadata":{"pad":"${'x'.repeat(length - valid.length - 22)}"}}`);
      expect(Buffer.byteLength(padded(4097))).toBe(4097);
      const before = storeFingerprint(setup.gateway.store);
      const response = await fetch(`${setup.url}${endpoint.path.replace('SESSION', 'missing')}`, {
        method: methodOf(endpoint),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: padded(4097),
      });
      const text = await response.text();
      expect(response.status, `${endpoint.name}: ${text}`).toBe(413);
      expectErrorShape(endpoint.protocol, text, endpoint.name);
      expect(storeFingerprint(setup.gateway.store)).toBe(before);
      if (endpoint.protocol !== 'admin') {
        const atLimit = await fetch(`${setup.url}${endpoint.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: padded(4096),
        });
        // read and judged on its content (a 200, or a 400 for a field the door does not take), never refused for size
        expect(atLimit.status, `${endpoint.name} at the limit: ${await atLimit.text()}`).not.toBe(413);
      }
    }
  });
});

describe('nesting limit (maxJsonDepth)', () => {
  it('is configurable: at 8 a body nested 9 deep is refused, 8 deep goes through', async () => {
    setup = await start({ maxJsonDepth: 8 });
    const body = (levels: number): string =>
      JSON.stringify(BODY_ENDPOINTS[0]?.valid).replace(/}$/, `,"metadata":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`);
    const deep = await fetch(`${setup.url}/s/depth/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(9),
    });
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: { code: 'TT_INVALID_REQUEST', message: expect.stringMatching(/deeper than 8/) } });
    const ok = await fetch(`${setup.url}/s/depth/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(8),
    });
    expect(ok.status).toBe(200);
  });

  it('refuses settings past the depth the code behind it is tested to survive', () => {
    expect(gatewayConfigSchema.parse({}).maxJsonDepth).toBe(512);
    expect(gatewayConfigSchema.safeParse({ maxJsonDepth: 5000 }).success).toBe(false);
    expect(gatewayConfigSchema.safeParse({ maxJsonDepth: 0 }).success).toBe(false);
  });
});

describe('request timeout (requestTimeoutMs)', () => {
  it('a client that sends half a body and stalls (slowloris) is answered 408 and cut off; the gateway serves on', async () => {
    expect(gatewayConfigSchema.parse({}).requestTimeoutMs).toBe(300_000);
    setup = await start({ requestTimeoutMs: 1000 });
    const before = storeFingerprint(setup.gateway.store);
    const { port } = new URL(setup.url);
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.write(
      'POST /s/slow/v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":',
    );
    await closed;
    const answer = Buffer.concat(received).toString('utf8');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '')).toMatchObject({ error: { code: 'TT_REQUEST_TIMEOUT' } });
    expect(storeFingerprint(setup.gateway.store)).toBe(before);
    const normal = await fetch(`${setup.url}/s/slow/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BODY_ENDPOINTS[0]?.valid),
    });
    expect(normal.status).toBe(200);
  });

  it('never cuts an answer that takes longer than the timeout: it bounds the request, not the generation', async () => {
    setup = await startGatewayWithSim(
      { tokensPerSecond: 8, script: { replies: [{ times: 'forever', content: 'one two three four five six seven eight nine ten eleven twelve' }] } },
      { requestTimeoutMs: 500 },
    );
    const response = await fetch(`${setup.url}/s/long/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BODY_ENDPOINTS[0]?.valid).replace('"max_tokens":4', '"max_tokens":64'),
    });
    const answer = (await response.json()) as { choices: Array<{ message: { content: string } }>; usage: { completion_tokens: number } };
    expect(response.status).toBe(200);
    // more tokens than 8 per second fit in the timeout: the answer outlived it
    expect(answer.usage.completion_tokens).toBeGreaterThan(8);
    expect(setup.gateway.store.listCalls('long').map((call) => call.status)).toEqual(['ok']);
  });
});
