import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { stalledAdminGet, startRolloutGateway } from './rollout-test-helpers.js';

const LIMIT = 64 * 1024;

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

describe('an admin event reader that stops reading', () => {
  it('is cut off once it is eventStreamMaxBufferBytes behind (counted in /metrics), and the gateway goes on', async () => {
    setup = await startRolloutGateway({}, { eventStreamMaxBufferBytes: LIMIT });
    const socket = await stalledAdminGet(setup, '/events');
    const closed = once(socket, 'close');
    const live = new AbortController();
    // session-end events, ~200 bytes each, until the gateway gives up on the reader (the kernel buffers some first)
    let ended = 0;
    const cutOff = closed.then(() => live.abort());
    const gatewayMetric = async (): Promise<number> =>
      Number(/^tokentap_event_stream_cutoffs_total (\d+)$/m.exec(await (await fetch(`${setup!.url}/metrics`)).text())?.[1]);
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
