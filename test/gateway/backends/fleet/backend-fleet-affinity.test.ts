import { afterEach, describe, expect, it } from 'vitest';
import type { BackendFleet, PickInput } from '../../../../gateway/backends/fleet/fleet-types.js';
import { closedPort } from '../../../helpers/closed-port.js';
import { createTestFleet, sessionIds, vllmSpec } from './fleet-test-helpers.js';

const call = (sessionId: string | null): PickInput => ({ model: null, sessionId, exclude: new Set() });

const fleets: BackendFleet[] = [];
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.close();
});

/** A fleet of `count` replicas nothing listens behind (picking never touches the network; never started). */
async function offlineFleet(count: number, affinity?: 'session' | 'none'): Promise<BackendFleet> {
  const port = await closedPort();
  const specs = Array.from({ length: count }, (_, index) => vllmSpec(`vllm-${index + 1}`, `http://127.0.0.1:${port}`));
  const fleet = createTestFleet(specs, affinity === undefined ? {} : { affinity });
  fleets.push(fleet);
  return fleet;
}

/** The replica of each call, made one after another, each released before the next. */
function servedBy(fleet: BackendFleet, sessions: Array<string | null>): string[] {
  return sessions.map((session) => {
    const lease = fleet.pick(call(session));
    lease.release({ ok: true });
    return lease.id;
  });
}

describe('backend affinity', () => {
  it("'none' sends the calls of one session round robin over idle replicas and pins nothing", async () => {
    const fleet = await offlineFleet(3, 'none');
    expect(servedBy(fleet, Array<string>(6).fill('session-a'))).toEqual(['vllm-1', 'vllm-2', 'vllm-3', 'vllm-1', 'vllm-2', 'vllm-3']);
    expect(fleet.snapshot().map((replica) => replica.sessionsPinned)).toEqual([0, 0, 0]);
  });

  it("'none' sends a session's call to the replica with the fewest calls in flight", async () => {
    const fleet = await offlineFleet(3, 'none');
    const held = [fleet.pick(call('session-a')), fleet.pick(call('session-a'))];
    expect(held.map((lease) => lease.id)).toEqual(['vllm-1', 'vllm-2']);
    expect(fleet.pick(call('session-a')).id).toBe('vllm-3');
    held[0]!.release({ ok: true });
    expect(fleet.pick(call('session-b')).id).toBe('vllm-1');
  });

  it("'session', the default, keeps every call of a session on one replica", async () => {
    for (const fleet of [await offlineFleet(3), await offlineFleet(3, 'session')]) {
      for (const session of sessionIds(20)) expect(new Set(servedBy(fleet, Array<string>(4).fill(session))).size).toBe(1);
      expect(fleet.snapshot().reduce((sum, replica) => sum + replica.sessionsPinned, 0)).toBe(20);
    }
  });
});
