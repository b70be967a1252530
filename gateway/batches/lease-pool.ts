import { randomUUID } from 'node:crypto';
import type { ServableGroupsQuery, Store } from '../../store/index.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';

/** What one pull asks for. @example const request: LeaseRequest = { minGroups: 4, maxGroups: 8, leaseMs: 300_000, consumer: 'trainer-0', filters: { split: 'train' } }; */
export interface LeaseRequest {
  /** lease only when at least this many groups are servable */
  minGroups: number;
  /** and at most this many */
  maxGroups: number;
  leaseMs: number;
  /** the consumer's name, kept with the lease and its ack */
  consumer: string;
  /** rollout-level filters: a group qualifies when one of its sessions matches them */
  filters?: Omit<ServableGroupsQuery, 'limit' | 'excludeIds'>;
}

/**
 * Groups handed to one consumer until it acknowledges them, releases them, or the lease expires.
 *
 * @example const { batchId, groupIds, expiresAt } = pool.tryLease(request) ?? {};
 */
export interface Lease {
  batchId: string;
  groupIds: string[];
  consumer: string;
  leasedAt: number;
  expiresAt: number;
}

/** What an ack answers: the groups it consumed for good. @example const { groupIds, ackedAt }: AckResult = pool.ack(batchId); */
export interface AckResult {
  batchId: string;
  groupIds: string[];
  consumer: string;
  ackedAt: number;
}

type LeaseEnd = 'expired' | 'released' | 'acknowledged';

interface Waiter {
  request: LeaseRequest;
  settle: (lease: Lease | null) => void;
  fail: (error: unknown) => void;
}

/** How many ended batch ids are remembered, so an ack after expiry is 409, not 404. */
const REMEMBERED_ENDS = 10_000;

/**
 * The pull API's leases (docs/export.md, "Online pull API"), in memory: each complete, unacknowledged group is
 * leased to at most one consumer at a time; a lease not acknowledged in time returns its groups to the pool
 * (at-least-once delivery), an ack consumes them in the store for good. Long polls wait here in arrival order and
 * are served when `wake()` says groups completed, or when a lease expires or is released.
 *
 * @example
 * const pool = new LeasePool(store);
 * const lease = await pool.lease({ minGroups: 4, maxGroups: 8, leaseMs: 300_000, consumer: 'trainer-0' }, signal);
 * if (lease !== null) pool.ack(lease.batchId);
 */
export class LeasePool {
  readonly #store: Store;
  readonly #leases = new Map<string, Lease & { timer: NodeJS.Timeout }>();
  readonly #ended = new Map<string, LeaseEnd>();
  readonly #waiters: Waiter[] = [];
  #closed = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** groups leased right now */
  get leasedGroupIds(): string[] {
    return [...this.#leases.values()].flatMap((lease) => lease.groupIds);
  }

  /** the leases alive right now */
  get activeLeases(): Lease[] {
    return [...this.#leases.values()].map(({ timer: _timer, ...lease }) => lease);
  }

  /** Leases servable groups at once, or answers null when fewer than `minGroups` are. */
  tryLease(request: LeaseRequest): Lease | null {
    if (this.#closed) throw new TokentapError('TT_SHUTTING_DOWN');
    const groupIds = this.#store.listServableGroups({ ...request.filters, limit: request.maxGroups, excludeIds: this.leasedGroupIds });
    if (groupIds.length < request.minGroups || groupIds.length === 0) return null;
    const leasedAt = Date.now();
    const batchId = randomUUID();
    const lease = { batchId, groupIds, consumer: request.consumer, leasedAt, expiresAt: leasedAt + request.leaseMs };
    // expiry by timer wakes long polls; ack and release also check the clock, in case the timer runs late
    const timer = setTimeout(() => this.#end(batchId, 'expired'), request.leaseMs);
    timer.unref();
    this.#leases.set(batchId, { ...lease, timer });
    return lease;
  }

  /**
   * Leases as soon as enough groups are servable; null once `signal` aborts first (the wait timed out or the
   * client left: nothing stays leased for it). Waiters are served in arrival order.
   */
  lease(request: LeaseRequest, signal?: AbortSignal): Promise<Lease | null> {
    const now = this.tryLease(request);
    if (now !== null || signal?.aborted === true) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => waiter.settle(null);
      const leave = (): void => {
        signal?.removeEventListener('abort', onAbort);
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        request,
        settle: (lease) => {
          leave();
          resolve(lease);
        },
        fail: (error) => {
          leave();
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Groups may have become servable (a group completed, a lease ended): serve the waiting pulls, oldest first. */
  wake(): void {
    for (const waiter of [...this.#waiters]) {
      if (this.#closed) return;
      // called from timers and event listeners: a failing store read fails that pull, never the process
      try {
        const lease = this.tryLease(waiter.request);
        if (lease !== null) waiter.settle(lease);
      } catch (error) {
        waiter.fail(error);
      }
    }
  }

  /**
   * Consumes the batch's groups for good (in the store, so a restart keeps them consumed). Acknowledging an
   * acknowledged batch again answers the same (a retried ack is safe). TT_BATCH_NOT_FOUND for a batch never
   * leased here; TT_LEASE_EXPIRED when its lease expired or was released (its groups may be someone else's now).
   */
  ack(batchId: string): AckResult {
    const lease = this.#activeLease(batchId);
    if (lease === null) {
      const acknowledged = this.#store.getBatchAck(batchId);
      if (acknowledged !== null) return acknowledged;
      throw this.#endedError(batchId, 'acknowledge');
    }
    const ackedAt = Date.now();
    this.#store.ackGroups(batchId, lease.groupIds, lease.consumer, ackedAt);
    this.#end(batchId, 'acknowledged');
    return { batchId, groupIds: lease.groupIds, consumer: lease.consumer, ackedAt };
  }

  /** Gives the batch's groups back to the pool before the lease expires; same errors as `ack`. */
  release(batchId: string): Lease {
    const lease = this.#activeLease(batchId);
    if (lease === null) throw this.#endedError(batchId, 'release');
    this.#end(batchId, 'released');
    return lease;
  }

  /** At shutdown: waiting pulls fail with TT_SHUTTING_DOWN, leases are forgotten (their groups stay unacknowledged). */
  close(): void {
    this.#closed = true;
    for (const lease of this.#leases.values()) clearTimeout(lease.timer);
    this.#leases.clear();
    for (const waiter of [...this.#waiters]) waiter.fail(new TokentapError('TT_SHUTTING_DOWN'));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The live lease, after expiring it when its time is up. */
  #activeLease(batchId: string): Lease | null {
    const lease = this.#leases.get(batchId);
    if (lease === undefined) return null;
    if (Date.now() >= lease.expiresAt) {
      this.#end(batchId, 'expired');
      return null;
    }
    const { timer: _timer, ...rest } = lease;
    return rest;
  }

  #end(batchId: string, how: LeaseEnd): void {
    const lease = this.#leases.get(batchId);
    if (lease === undefined) return;
    clearTimeout(lease.timer);
    this.#leases.delete(batchId);
    this.#ended.set(batchId, how);
    if (this.#ended.size > REMEMBERED_ENDS) this.#ended.delete(this.#ended.keys().next().value as string);
    // acknowledged groups are gone; expired or released ones may serve a waiting pull now
    if (how !== 'acknowledged') this.wake();
  }

  #endedError(batchId: string, action: 'acknowledge' | 'release'): TokentapError {
    const how = this.#ended.get(batchId);
    if (how === undefined) {
      return new TokentapError('TT_BATCH_NOT_FOUND', {
        message: `No batch ${batchId} (leases do not survive a restart; its groups are served again)`,
      });
    }
    const what =
      how === 'acknowledged'
        ? 'it was acknowledged: its groups are consumed'
        : `its lease ${how === 'expired' ? 'expired' : 'was released'}: its groups went back to the pool`;
    return new TokentapError('TT_LEASE_EXPIRED', { message: `Cannot ${action} batch ${batchId}: ${what}` });
  }
}
