import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { BODY_ENDPOINTS, methodOf, type BodyEndpoint } from './hostile-endpoints.js';
import { expectErrorShape } from './protocol-shapes.js';
import { chunkedFraming, fillerChunks, rawRequest } from './raw-http.js';
import { storeFingerprint } from './store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-hostile-tests-0123';
const MIB = 1024 * 1024;
/** 100 MiB, sent as 100 chunks of 1 MiB: never held in memory at once by the client either */
const CHUNKS = 100;

let setup: GatewayWithSim;
beforeAll(async () => {
  // the default bodyLimit (64 MiB): the test is about the limit tokentap ships with
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } }, { adminToken: ADMIN_TOKEN });
});
afterAll(async () => {
  await setup.close();
});

function head(endpoint: BodyEndpoint, framing: string): string {
  const path = endpoint.path.replace('SESSION', 'no-such-session');
  return `${methodOf(endpoint)} ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n${framing}\r\n`;
}

describe('a 100 MiB body over a real socket is refused with 413 in the protocol shape, before it is all sent', () => {
  it('declared by Content-Length: every JSON route answers 413 at once, before the body', async () => {
    expect(setup.gateway.config.bodyLimit).toBe(64 * MIB);
    for (const endpoint of BODY_ENDPOINTS) {
      const before = storeFingerprint(setup.gateway.store);
      const answer = await rawRequest(setup.url, head(endpoint, `Content-Length: ${CHUNKS * MIB + 1}\r\n`), fillerChunks(CHUNKS, MIB));
      expect(answer.status, `${endpoint.name}: ${answer.body.slice(0, 200)}`).toBe(413);
      const body = expectErrorShape(endpoint.protocol, answer.body, endpoint.name);
      if (endpoint.protocol === 'anthropic') expect(body).toMatchObject({ error: { type: 'request_too_large' } });
      else expect(body).toMatchObject({ error: { code: 'TT_BODY_TOO_LARGE' } });
      // the answer came before the body reached the limit: it was refused on its declared length, not read
      expect(answer.bodyBytesSentBeforeAnswer).toBeLessThan(64 * MIB);
      expect(storeFingerprint(setup.gateway.store)).toBe(before);
    }
  });

  for (const endpoint of [BODY_ENDPOINTS[0], BODY_ENDPOINTS[3], BODY_ENDPOINTS[5]] as BodyEndpoint[]) {
    it(`chunked, no length given (${endpoint.name}): 413 once the limit is passed, while the client is still sending`, async () => {
      const before = storeFingerprint(setup.gateway.store);
      const answer = await rawRequest(setup.url, head(endpoint, 'Transfer-Encoding: chunked\r\n'), chunkedFraming(fillerChunks(CHUNKS, MIB)));
      expect(answer.status, answer.body.slice(0, 200)).toBe(413);
      expectErrorShape(endpoint.protocol, answer.body, endpoint.name);
      expect(answer.bodyBytesSentBeforeAnswer).toBeGreaterThan(64 * MIB);
      expect(answer.bodyBytesSentBeforeAnswer).toBeLessThan(CHUNKS * MIB);
      expect(storeFingerprint(setup.gateway.store)).toBe(before);
    });
  }

  it('a real client (fetch) streaming 100 MiB reads the 413 every time, not a reset: the connection lingers', async () => {
    const oneMib = Buffer.alloc(MIB, '1,');
    for (const endpoint of [BODY_ENDPOINTS[0], BODY_ENDPOINTS[3], BODY_ENDPOINTS[5]] as BodyEndpoint[]) {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(oneMib);
          },
        });
        const response = await fetch(`${setup.url}${endpoint.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
          body,
          duplex: 'half',
        } as RequestInit);
        expect(response.status, endpoint.name).toBe(413);
        expectErrorShape(endpoint.protocol, await response.text(), endpoint.name);
      }
    }
  });

  it('serves a normal call afterwards', async () => {
    const response = await fetch(`${setup.url}/s/after/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BODY_ENDPOINTS[0]?.valid),
    });
    expect(response.status).toBe(200);
  });
});
