import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { ADMIN_TOKEN, startRolloutGateway } from './rollout-test-helpers.js';

const LIMIT = 64 * 1024;

let setup: GatewayWithSim | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  await setup?.close();
  setup = undefined;
});

/** Opens GET /tokentap/v1/events on a raw socket and stops reading once the response has begun. */
async function stalledReader(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const reader = connect(Number(port), hostname);
  await once(reader, 'connect');
  reader.write(`GET /tokentap/v1/events HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\naccept: text/event-stream\r\n\r\n`);
  const [first] = (await once(reader, 'data')) as [Buffer];
  expect(first.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
  reader.pause();
  return reader;
}

describe('an admin event reader that stops reading', () => {
  it('is cut off once it is eventStreamMaxBufferBytes behind (counted in /metrics), and the gateway goes on', async () => {
    setup = await startRolloutGateway({}, { eventStreamMaxBufferBytes: LIMIT });
    socket = await stalledReader(setup.url);
    const closed = once(socket, 'close');
    const live = new AbortController();
    // session-end events, ~200 bytes each, until the gateway gives up on the reader (the kernel buffers some first)
    let ended = 0;
    const cutOff = closed.then(() => live.abort());
    const gatewayMetric = async (): Promise<number> => Number(/^tokentap_event_stream_cutoffs_total (\d+)$/m.exec(await (await fetch(`${setup!.url}/metrics`)).text())?.[1]);
    while (!live.signal.aborted && ended < 200_000) {
      for (let batch = 0; batch < 500; batch++) {
        const session = await setup.gateway.createSession({ id: `stalled-reader-session-${ended}`.padEnd(100, 'x') });
        await session.end('completed');
        ended++;
      }
      if ((await gatewayMetric()) > 0) break;
    }
    expect(await gatewayMetric()).toBe(1);
    // reading again drains what the kernel held; then the gateway's close arrives
    socket.resume();
    await Promise.race([cutOff, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    expect(live.signal.aborted).toBe(true);
    expect(ended).toBeGreaterThan(LIMIT / 200);
    // the gateway serves other readers and calls as before
    const health = await fetch(`${setup.url}/healthz`);
    expect(health.status).toBe(200);
  }, 120_000);
});
