import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { GatewayInstanceRow, Store } from '../store/types.js';

/** How often a running gateway refreshes its row and recovers the calls of gateways that died since (config instanceHeartbeatMs). */
export const INSTANCE_HEARTBEAT_MS = 30_000;
/** A gateway outside this process scope (another host, container or boot) counts as gone this many heartbeats after its last refresh. */
export const INSTANCE_STALE_BEATS = 10;
/** ... that is, by default, this long. */
export const INSTANCE_STALE_MS = INSTANCE_STALE_BEATS * INSTANCE_HEARTBEAT_MS;

/**
 * This gateway process as a row of gateway_instances, and the judge of other rows. Several gateways may write one
 * database; each tags the calls it begins with its id, and whoever starts (or refreshes) marks `incomplete` only the
 * calls of gateways that are gone: in the same process scope by its pid (and the pid's start time, so a reused pid
 * is not mistaken for it), elsewhere by a refresh older than INSTANCE_STALE_BEATS heartbeats (`heartbeatMs`, the same on
 * every gateway of a database: a gateway judges the others by its own), and only once this gateway has itself reached
 * the database for that long (after an outage every row is stale). Each beat writes its row anew, so a gateway another
 * took for gone while it could not reach the database registers again.
 *
 * @example
 * const instance = startGatewayInstance(store, logger); // registers, recovers, refreshes every 30 s
 * context.instanceId = instance.id;
 * await app.close(); instance.stop(); // forgets this gateway
 */
export interface GatewayInstance {
  id: string;
  stop(): void;
}

export function startGatewayInstance(store: Store, logger: FastifyBaseLogger, options: { heartbeatMs?: number } = {}): GatewayInstance {
  const heartbeatMs = options.heartbeatMs ?? INSTANCE_HEARTBEAT_MS;
  const now = Date.now();
  const row: GatewayInstanceRow = {
    id: randomUUID(),
    host: hostname(),
    pid: process.pid,
    processScope: processScope(),
    processStart: processStartTime(process.pid),
    startedAt: now,
    seenAt: now,
  };
  store.registerInstance(row);
  const staleMs = INSTANCE_STALE_BEATS * heartbeatMs;
  // since when this gateway has reached the database without a failed beat: a host elsewhere is judged by its
  // refreshes only once it had as long to make them (after a restart of PostgreSQL every row is stale, none dead)
  let reachedSince: number | null = now;
  const recover = (at: number): void => {
    const judging = reachedSince !== null && at - reachedSince >= staleMs;
    const recovered = store.recoverOrphanedCalls(
      (other) => other.id === row.id || (!judging && other.processScope !== row.processScope) || isInstanceLive(other, at, row.processScope, staleMs),
    );
    if (recovered.calls > 0)
      logger.warn(
        { calls: recovered.calls, gateways: recovered.instances },
        'calls left in progress by a gateway that is gone are marked incomplete',
      );
  };
  recover(now);
  const timer = setInterval(() => {
    const at = Date.now();
    try {
      // written anew, not touched: a row another gateway removed (it took this one for gone while the database was
      // out of its reach) is back before this one's calls are judged, by it or by the others
      store.batch(() => {
        store.removeInstance(row.id);
        store.registerInstance({ ...row, seenAt: at });
      });
      reachedSince ??= at;
      recover(at);
    } catch (error) {
      reachedSince = null;
      // a full or read-only disk, PostgreSQL away: the recorder reports it; the next beat tries again
      logger.warn({ err: error }, 'could not refresh this gateway in the database');
    }
  }, heartbeatMs);
  timer.unref();
  return {
    id: row.id,
    stop() {
      clearInterval(timer);
      try {
        store.removeInstance(row.id);
      } catch (error) {
        logger.warn({ err: error }, 'could not remove this gateway from the database; the next gateway to start will');
      }
    },
  };
}

/**
 * Whether the gateway of `row` still runs: in this process scope, its pid exists and started when it did; elsewhere,
 * it refreshed its row within `staleMs` (default INSTANCE_STALE_MS).
 *
 * @example isInstanceLive(row, Date.now()) // false once that gateway was SIGKILLed
 */
export function isInstanceLive(row: GatewayInstanceRow, now: number, scope = processScope(), staleMs = INSTANCE_STALE_MS): boolean {
  if (row.processScope !== scope) return now - row.seenAt < staleMs;
  if (!pidExists(row.pid)) return false;
  if (row.processStart === null) return true;
  const start = processStartTime(row.pid);
  return start === null || start === row.processStart;
}

/** Where a pid names one process: the boot and PID namespace on Linux, else the host name. */
export function processScope(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${boot}:${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return `host:${hostname()}`;
  }
}

/** The process's start time in clock ticks after boot (/proc/PID/stat, field 22); null where unknown. */
export function processStartTime(pid: number): string | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
    return fields?.[19] ?? null;
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
