import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeasePool, type LeaseRequest } from '../../../gateway/batches/lease-pool.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import type { Store } from '../../../store/index.js';
import { createTempWorkspace, type TempWorkspace } from '../../store/store-fixtures.js';
import { addGroup } from './batch-fixtures.js';

let workspace: TempWorkspace;
let store: Store;
let pool: LeasePool;
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  workspace = createTempWorkspace();
  store = workspace.open();
  pool = new LeasePool(store);
});
afterEach(() => {
  pool.close();
  workspace.cleanup();
  vi.useRealTimers();
});

function request(overrides: Partial<LeaseRequest> = {}): LeaseRequest {
  return { minGroups: 1, maxGroups: 10, leaseMs: 60_000, consumer: 'trainer-0', ...overrides };
}

function errorCode(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return error instanceof TokentapError ? error.code : `not a TokentapError: ${String(error)}`;
  }
  return undefined;
}

describe('lease pool', () => {
  it('leases servable groups oldest completion first, between minGroups and maxGroups', () => {
    addGroup(store, 'b', { completedAt: 2000 });
    addGroup(store, 'a', { completedAt: 1000 });
    addGroup(store, 'c', { completedAt: 3000 });
    expect(pool.tryLease(request({ minGroups: 4 }))).toBeNull();
    const lease = pool.tryLease(request({ minGroups: 2, maxGroups: 2 }));
    expect(lease).toMatchObject({ groupIds: ['a', 'b'], consumer: 'trainer-0', leasedAt: 1_000_000, expiresAt: 1_060_000 });
  });

  it('two consumers never hold the same group', () => {
    for (const [index, groupId] of ['a', 'b', 'c'].entries()) addGroup(store, groupId, { completedAt: 1000 + index });
    const first = pool.tryLease(request({ maxGroups: 2, consumer: 'one' }));
    const second = pool.tryLease(request({ maxGroups: 2, consumer: 'two' }));
    expect(first?.groupIds).toEqual(['a', 'b']);
    expect(second?.groupIds).toEqual(['c']);
    expect(pool.tryLease(request({ consumer: 'three' }))).toBeNull();
  });

  it('an ack consumes the groups: nobody is served them again', () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const lease = pool.tryLease(request());
    expect(pool.ack(lease?.batchId as string)).toEqual({ batchId: lease?.batchId, groupIds: ['a'], consumer: 'trainer-0', ackedAt: 1_000_000 });
    vi.advanceTimersByTime(120_000);
    expect(pool.tryLease(request())).toBeNull();
    expect(store.listServableGroups({ limit: 10 })).toEqual([]);
  });

  it('acknowledging the same batch again answers the same ack', () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const batchId = pool.tryLease(request())?.batchId as string;
    const ack = pool.ack(batchId);
    vi.advanceTimersByTime(1000);
    expect(pool.ack(batchId)).toEqual(ack);
  });

  it('a lease not acknowledged in time returns its groups to the pool, and a late ack is refused', () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const lease = pool.tryLease(request({ leaseMs: 5000 }));
    expect(pool.tryLease(request())).toBeNull();
    vi.advanceTimersByTime(5000);
    expect(pool.activeLeases).toEqual([]);
    expect(pool.tryLease(request({ consumer: 'other' }))?.groupIds).toEqual(['a']);
    expect(errorCode(() => pool.ack(lease?.batchId as string))).toBe('TT_LEASE_EXPIRED');
    expect(store.listServableGroups({ limit: 10 })).toEqual(['a']);
  });

  it('an ack at the expiry time is refused even when the timer has not run yet', () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const lease = pool.tryLease(request({ leaseMs: 5000 }));
    vi.setSystemTime(1_005_000);
    expect(errorCode(() => pool.ack(lease?.batchId as string))).toBe('TT_LEASE_EXPIRED');
    expect(pool.tryLease(request())?.groupIds).toEqual(['a']);
  });

  it('a release gives the groups back at once; the released batch cannot be acknowledged or released again', () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const lease = pool.tryLease(request());
    expect(pool.release(lease?.batchId as string).groupIds).toEqual(['a']);
    expect(errorCode(() => pool.ack(lease?.batchId as string))).toBe('TT_LEASE_EXPIRED');
    expect(errorCode(() => pool.release(lease?.batchId as string))).toBe('TT_LEASE_EXPIRED');
    expect(pool.tryLease(request())?.groupIds).toEqual(['a']);
  });

  it('an unknown batch is TT_BATCH_NOT_FOUND for ack and release', () => {
    expect(errorCode(() => pool.ack('no-such-batch'))).toBe('TT_BATCH_NOT_FOUND');
    expect(errorCode(() => pool.release('no-such-batch'))).toBe('TT_BATCH_NOT_FOUND');
  });

  it('a waiting pull is served once enough groups are servable, not before', async () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const pending = pool.lease(request({ minGroups: 2 }));
    pool.wake();
    addGroup(store, 'b', { completedAt: 2000 });
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    pool.wake();
    expect((await pending)?.groupIds).toEqual(['a', 'b']);
  });

  it('a waiting pull gets the groups of a lease that expires', async () => {
    addGroup(store, 'a', { completedAt: 1000 });
    const held = pool.tryLease(request({ leaseMs: 5000, consumer: 'slow' }));
    const pending = pool.lease(request({ consumer: 'fast' }));
    vi.advanceTimersByTime(5000);
    expect(await pending).toMatchObject({ groupIds: ['a'], consumer: 'fast' });
    expect(held?.groupIds).toEqual(['a']);
    expect(pool.activeLeases.map((lease) => lease.consumer)).toEqual(['fast']);
  });

  it('waiting pulls are served in arrival order, with disjoint groups', async () => {
    const first = pool.lease(request({ maxGroups: 1, consumer: 'one' }));
    const second = pool.lease(request({ maxGroups: 1, consumer: 'two' }));
    addGroup(store, 'a', { completedAt: 1000 });
    addGroup(store, 'b', { completedAt: 2000 });
    pool.wake();
    expect((await first)?.groupIds).toEqual(['a']);
    expect((await second)?.groupIds).toEqual(['b']);
  });

  it('an aborted wait answers null and leaves no lease and no waiter behind', async () => {
    const waiting = new AbortController();
    const pending = pool.lease(request(), waiting.signal);
    waiting.abort();
    expect(await pending).toBeNull();
    addGroup(store, 'a', { completedAt: 1000 });
    pool.wake();
    expect(pool.activeLeases).toEqual([]);
    expect(pool.tryLease(request())?.groupIds).toEqual(['a']);
  });

  it('closing fails the waiting pulls with TT_SHUTTING_DOWN', async () => {
    const pending = pool.lease(request());
    pool.close();
    await expect(pending).rejects.toMatchObject({ code: 'TT_SHUTTING_DOWN' });
  });
});

describe('lease pools of two gateways on one database', () => {
  let other: LeasePool;
  let otherStore: Store;
  beforeEach(() => {
    otherStore = workspace.open();
    other = new LeasePool(otherStore, { pollMs: 250 });
  });
  afterEach(() => other.close());

  it('a waiting pull learns from its poll of groups completed through the other gateway', async () => {
    const pending = other.lease(request());
    addGroup(store, 'a', { completedAt: 1000 });
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    vi.advanceTimersByTime(250);
    expect((await pending)?.groupIds).toEqual(['a']);
  });

  it("a lease is the store's: made through one pool, seen, acknowledged or released through the other", () => {
    addGroup(store, 'a', { completedAt: 1000 });
    addGroup(store, 'b', { completedAt: 2000 });
    const first = pool.tryLease(request({ maxGroups: 1 }));
    expect(other.tryLease(request())?.groupIds).toEqual(['b']);
    // both leased in the same (fake) millisecond: the store orders such ties by batch id, a random UUID
    expect(other.activeLeases.map((lease) => lease.groupIds).sort()).toEqual([['a'], ['b']]);
    expect(other.ack(first?.batchId as string)).toMatchObject({ groupIds: ['a'], consumer: 'trainer-0' });
    expect(pool.ack(first?.batchId as string)).toMatchObject({ groupIds: ['a'] });
    const second = other.activeLeases.find((lease) => lease.groupIds[0] === 'b')?.batchId as string;
    expect(pool.release(second).groupIds).toEqual(['b']);
    expect(errorCode(() => other.ack(second))).toBe('TT_LEASE_EXPIRED');
  });
});
