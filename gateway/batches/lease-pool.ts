import { randomUUID } from 'node:crypto';
import type { BatchLeaseRow, BatchLeaseState, ServableGroupsFilter, Store } from '../../store/index.js';
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
  filters?: ServableGroupsFilter;
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

interface Waiter {
  request: LeaseRequest;
  settle: (lease: Lease | null) => void;
  fail: (error: unknown) => void;
}

/**
 * How often waiting pulls look at the store for groups that completed, or leases that ended, on another gateway on
 * the database (this gateway's own wake them at once). Only while a pull waits.
 */
export const DEFAULT_LEASE_POLL_MS = 500;

export interface LeasePoolOptions {
  /** ms between looks at the store while a pull waits (DEFAULT_LEASE_POLL_MS) */
  pollMs?: number;
}

/**
 * The pull API's leases (docs/export.md, "Online pull API"). The leases are the store's (batch_leases,
 * leased_groups), shared by every gateway on the database: each complete, unacknowledged group is leased to at most
 * one consumer at a time, whichever gateway served it; a lease not acknowledged in time returns its groups to the
 * pool (at-least-once delivery), an ack consumes them for good; a lease made through one gateway may be acknowledged
 * or released through another. Long polls wait here, in this gateway's memory, in arrival order, and are served when
 * `wake()` says groups completed, when a lease made here expires or one is released here, or when the poll every
 * `pollMs` finds what other gateways did.
 *
 * @example
 * const pool = new LeasePool(store);
 * const lease = await pool.lease({ minGroups: 4, maxGroups: 8, leaseMs: 300_000, consumer: 'trainer-0' }, signal);
 * if (lease !== null) pool.ack(lease.batchId);
 */
export class LeasePool {
  readonly #store: Store;
  readonly #pollMs: number;
  /** a timer per lease made here, to wake waiting pulls when it expires */
  readonly #expiries = new Map<string, NodeJS.Timeout>();
  readonly #waiters: Waiter[] = [];
  #poll: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(store: Store, options: LeasePoolOptions = {}) {
    this.#store = store;
    this.#pollMs = options.pollMs ?? DEFAULT_LEASE_POLL_MS;
  }

  /** groups leased right now, by any gateway on the store */
  get leasedGroupIds(): string[] {
    return this.activeLeases.flatMap((lease) => lease.groupIds);
  }

  /** the leases alive right now, by any gateway on the store */
  get activeLeases(): Lease[] {
    return this.#store.listLiveBatchLeases(Date.now()).map(toLease);
  }

  /** Leases servable groups at once, or answers null when fewer than `minGroups` are. */
  tryLease(request: LeaseRequest): Lease | null {
    if (this.#closed) throw new TokentapError('TT_SHUTTING_DOWN');
    const leasedAt = Date.now();
    const row = this.#store.leaseBatch({
      batchId: randomUUID(),
      consumer: request.consumer,
      minGroups: request.minGroups,
      maxGroups: request.maxGroups,
      leasedAt,
      expiresAt: leasedAt + request.leaseMs,
      ...(request.filters === undefined ? {} : { filters: request.filters }),
    });
    if (row === null) return null;
    // expiry is read from the clock by the store; the timer only wakes this gateway's waiting pulls on time
    const timer = setTimeout(() => {
      this.#expiries.delete(row.batchId);
      this.wake();
    }, request.leaseMs);
    timer.unref();
    this.#expiries.set(row.batchId, timer);
    return toLease(row);
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
        this.#pollWhileWaiting();
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
      this.#pollWhileWaiting();
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
   * acknowledged batch again answers the same (a retried ack is safe). TT_BATCH_NOT_FOUND for a batch the store
   * never leased; TT_LEASE_EXPIRED when its lease expired or was released (its groups may be someone else's now).
   */
  ack(batchId: string): AckResult {
    const outcome = this.#store.acknowledgeBatch(batchId, Date.now());
    this.#forget(batchId);
    if (outcome === null) {
      // acknowledged before schema 7, when leases lived in a gateway's memory and only the ack was stored
      const acknowledged = this.#store.getBatchAck(batchId);
      if (acknowledged !== null) return acknowledged;
      throw notFound(batchId);
    }
    const { lease } = outcome;
    if (lease.state !== 'acknowledged') throw endedError(batchId, lease.state, 'acknowledge');
    return { batchId, groupIds: lease.groupIds, consumer: lease.consumer, ackedAt: lease.endedAt as number };
  }

  /** Gives the batch's groups back to the pool before the lease expires; same errors as `ack`. */
  release(batchId: string): Lease {
    const outcome = this.#store.releaseBatch(batchId, Date.now());
    if (outcome === null) throw notFound(batchId);
    if (!outcome.ended) throw endedError(batchId, outcome.lease.state, 'release');
    this.#forget(batchId);
    this.wake();
    return toLease(outcome.lease);
  }

  /**
   * At shutdown: waiting pulls fail with TT_SHUTTING_DOWN. Leases stay in the store: their consumers may still
   * acknowledge them through another gateway, or through this one once it is back, until they expire.
   */
  close(): void {
    this.#closed = true;
    for (const timer of this.#expiries.values()) clearTimeout(timer);
    this.#expiries.clear();
    for (const waiter of [...this.#waiters]) waiter.fail(new TokentapError('TT_SHUTTING_DOWN'));
    this.#pollWhileWaiting();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Starts the poll when a pull waits, stops it when none does. */
  #pollWhileWaiting(): void {
    const waiting = this.#waiters.length > 0 && !this.#closed;
    if (waiting && this.#poll === null) {
      this.#poll = setInterval(() => this.wake(), this.#pollMs);
      this.#poll.unref();
    } else if (!waiting && this.#poll !== null) {
      clearInterval(this.#poll);
      this.#poll = null;
    }
  }

  #forget(batchId: string): void {
    clearTimeout(this.#expiries.get(batchId));
    this.#expiries.delete(batchId);
  }
}

function toLease(row: BatchLeaseRow): Lease {
  return { batchId: row.batchId, groupIds: row.groupIds, consumer: row.consumer, leasedAt: row.leasedAt, expiresAt: row.expiresAt };
}

function notFound(batchId: string): TokentapError {
  return new TokentapError('TT_BATCH_NOT_FOUND', { message: `No batch ${batchId} was leased on this store` });
}

function endedError(batchId: string, state: BatchLeaseState, action: 'acknowledge' | 'release'): TokentapError {
  const what =
    state === 'acknowledged'
      ? 'it was acknowledged: its groups are consumed'
      : `its lease ${state === 'released' ? 'was released' : 'expired'}: its groups went back to the pool`;
  return new TokentapError('TT_LEASE_EXPIRED', { message: `Cannot ${action} batch ${batchId}: ${what}` });
}
