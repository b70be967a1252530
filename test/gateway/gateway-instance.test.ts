import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import type { GatewayInstanceRow, Store } from '../../store/types.js';
import {
  INSTANCE_STALE_BEATS,
  INSTANCE_STALE_MS,
  isInstanceLive,
  processScope,
  processStartTime,
  startGatewayInstance,
} from '../../gateway/gateway-instance.js';
import { sampleBeginInput } from '../store/store-fixtures.js';

const silent = { warn: () => undefined } as unknown as Parameters<typeof startGatewayInstance>[1];

/** The pid of a process that has exited (reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

const here = (overrides: Partial<GatewayInstanceRow>): GatewayInstanceRow => ({
  id: 'g',
  host: 'h',
  pid: process.pid,
  processScope: processScope(),
  processStart: processStartTime(process.pid),
  startedAt: 0,
  seenAt: 0,
  ...overrides,
});

let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

describe('isInstanceLive', () => {
  it('in this process scope: alive while its pid runs and started when the row says, gone otherwise', async () => {
    const now = Date.now();
    expect(isInstanceLive(here({}), now)).toBe(true);
    expect(isInstanceLive(here({ pid: await deadPid() }), now)).toBe(false);
    // the pid is taken by another process (this one) since: its start time gives it away
    expect(isInstanceLive(here({ processStart: '1' }), now)).toBe(process.platform !== 'linux');
    // unknown start time: the pid alone decides
    expect(isInstanceLive(here({ processStart: null }), now)).toBe(true);
  });

  it('in another scope (host, container, boot): alive while it refreshed its row within the stale limit', () => {
    const now = Date.now();
    const elsewhere = here({ processScope: 'another-host', pid: 999_999_999 });
    expect(isInstanceLive({ ...elsewhere, seenAt: now - INSTANCE_STALE_MS + 1_000 }, now)).toBe(true);
    expect(isInstanceLive({ ...elsewhere, seenAt: now - INSTANCE_STALE_MS - 1 }, now)).toBe(false);
  });
});

describe('startGatewayInstance', () => {
  it('recovers at start the calls of a gateway that died, and on each beat those of one that dies later', async () => {
    store = openStore({ path: ':memory:' });
    const dead = { ...here({ id: 'died-before', pid: await deadPid() }) };
    store.registerInstance(dead);
    const before = store.beginCall(sampleBeginInput({ sessionId: 's', instanceId: 'died-before' })).callId;
    const instance = startGatewayInstance(store, silent, { heartbeatMs: 20 });
    expect(store.getCall(before)?.status).toBe('incomplete');
    const mine = store.beginCall(sampleBeginInput({ sessionId: 's', instanceId: instance.id })).callId;
    store.registerInstance(here({ id: 'dies-later', pid: await deadPid() }));
    const later = store.beginCall(sampleBeginInput({ sessionId: 's', instanceId: 'dies-later' })).callId;
    // the heartbeat (every 20 ms) finds the gateway that died since
    await expect.poll(() => store?.getCall(later)?.status).toBe('incomplete');
    expect(store.getCall(mine)?.status).toBe('in_progress');
    instance.stop();
    // stopped: its row is gone, so the next gateway takes its leftover call for orphaned
    expect(store.recoverOrphanedCalls(() => true)).toEqual({ calls: 1, instances: [instance.id] });
  });

  it(`a gateway on another host counts as gone ${INSTANCE_STALE_BEATS} heartbeats after its last refresh (instanceHeartbeatMs)`, async () => {
    store = openStore({ path: ':memory:' });
    const heartbeatMs = 50;
    store.registerInstance(here({ id: 'elsewhere', processScope: 'another-host', pid: 999_999_999, seenAt: Date.now() }));
    const call = store.beginCall(sampleBeginInput({ sessionId: 's', instanceId: 'elsewhere' })).callId;
    const instance = startGatewayInstance(store, silent, { heartbeatMs });
    // it refreshed its row just now: alive at this gateway's start
    expect(store.getCall(call)?.status).toBe('in_progress');
    // it never refreshes again (its host is gone): a beat after 10 x 50 ms marks its call
    await expect.poll(() => store?.getCall(call)?.status, { timeout: 5_000 }).toBe('incomplete');
    instance.stop();
  });

  it('after the database was away from every gateway (a PostgreSQL restart), another host is not judged by refreshes it could not make', async () => {
    store = openStore({ path: ':memory:' });
    const heartbeatMs = 50;
    // the host's last refresh is long past: the database was down for all, longer than the stale window
    store.registerInstance(here({ id: 'elsewhere', processScope: 'another-host', pid: 999_999_999, seenAt: Date.now() - 60_000 }));
    const call = store.beginCall(sampleBeginInput({ sessionId: 's', instanceId: 'elsewhere' })).callId;
    const instance = startGatewayInstance(store, silent, { heartbeatMs });
    // it refreshes again now that the database is back, as a live host does at its next heartbeat
    const refreshing = setInterval(() => store?.touchInstance('elsewhere', Date.now()), heartbeatMs);
    try {
      await new Promise((resolve) => setTimeout(resolve, 3 * INSTANCE_STALE_BEATS * heartbeatMs));
      expect(store.getCall(call)?.status).toBe('in_progress');
    } finally {
      clearInterval(refreshing);
    }
    instance.stop();
  });

  it('a gateway another one took for gone (its row removed while it could not refresh) registers again and keeps its calls', async () => {
    store = openStore({ path: ':memory:' });
    const instance = startGatewayInstance(store, silent, { heartbeatMs: 20 });
    // another host's recovery, while this gateway was cut off from the database
    store.recoverOrphanedCalls((row) => row.id !== instance.id);
    const mine = store.beginCall(sampleBeginInput({ sessionId: 's', instanceId: instance.id })).callId;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(store.getCall(mine)?.status).toBe('in_progress');
    // registered again: another gateway's recovery takes it for live
    expect(store.recoverOrphanedCalls((row) => row.id === instance.id)).toEqual({ calls: 0, instances: [] });
    instance.stop();
  });
});
