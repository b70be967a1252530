import { join } from 'node:path';
import { Pool } from 'undici';
import { openStore } from '../store/index.js';
import { startLoadGateway, type LoadChild } from './load-processes.js';
import type { CallTarget } from './postgres-client.js';
import type { BenchPostgres } from './postgres-server.js';
import { verifyReceivedCalls, type LoadVerdict } from './load-verify.js';
import type { ReceivedCall } from './load-session.js';

export type BenchEngine = 'sqlite' | 'postgres';

/** `tokentap serve` processes on one database of one engine, as a fleet's gateways on many hosts would be. */
export interface BenchFleet {
  engine: BenchEngine;
  /** the SQLite file or the PostgreSQL database's URL */
  db: string;
  /** what `stats().bytesOnDisk` reads for this database migrated and empty: the schema's own pages */
  emptyBytes: number;
  gateways: LoadChild[];
  /** one pool per gateway */
  targets: CallTarget[];
}

/** What the bench sends calls to: the simulator itself, or the first N gateways of a fleet. */
export interface BenchSetup {
  name: string;
  engine: BenchEngine | 'direct';
  gateways: LoadChild[];
  targets: CallTarget[];
}

export interface StartFleetOptions {
  engine: BenchEngine;
  gateways: number;
  simUrl: string;
  postgres: BenchPostgres;
  workDir: string;
  /** concurrent calls the fleet may carry: each gateway gets as many backend connections and each pool as many sockets */
  connections: number;
}

/** The simulator as a setup: the latency every gateway's is compared with. */
export function directSetup(simUrl: string, connections: number): BenchSetup {
  return { name: 'direct', engine: 'direct', gateways: [], targets: [{ pool: new Pool(simUrl, { connections }), direct: true }] };
}

/**
 * A fresh database (a SQLite file in `workDir`, or a new PostgreSQL database), migrated and measured empty, then
 * `gateways` gateways on it started at once.
 *
 * @example const fleet = await startFleet({ engine: 'postgres', gateways: 4, simUrl, postgres, workDir, connections: 32 });
 */
export async function startFleet(options: StartFleetOptions): Promise<BenchFleet> {
  const db = options.engine === 'sqlite' ? join(options.workDir, 'sqlite.db') : options.postgres.createDatabase('bench_gateways');
  const store = openStore({ path: db });
  const emptyBytes = store.stats().bytesOnDisk;
  store.close();
  const gateways = await Promise.all(
    Array.from({ length: options.gateways }, (_, index) =>
      startLoadGateway({
        backendUrl: options.simUrl,
        db,
        connections: options.connections,
        logFile: join(options.workDir, `${options.engine}-gateway-${index + 1}.log`),
      }),
    ),
  );
  const targets = gateways.map((gateway) => ({ pool: new Pool(gateway.url, { connections: options.connections }), direct: false }));
  return { engine: options.engine, db, emptyBytes, gateways, targets };
}

/** The first `count` gateways of a fleet, named `<engine>-<count>`. */
export function fleetSetup(fleet: BenchFleet, count: number): BenchSetup {
  return { name: `${fleet.engine}-${count}`, engine: fleet.engine, gateways: fleet.gateways.slice(0, count), targets: fleet.targets.slice(0, count) };
}

/**
 * Closes the fleet's pools and stops its gateways (SIGTERM: each checkpoints its store); resolves with their exit codes.
 *
 * @example const exitCodes = await stopFleet(fleet); // [0, 0, 0, 0]
 */
export async function stopFleet(fleet: BenchFleet): Promise<Array<number | null>> {
  await Promise.all(fleet.targets.map((target) => target.pool.close()));
  return Promise.all(fleet.gateways.map((gateway) => gateway.stop()));
}

/**
 * What a stopped fleet's store holds of the calls a client received in full (load-verify.ts): each present, `ok`,
 * with as many completion ids as tokens received.
 *
 * @example verifyFleet(fleet, tally.received).lost // 0
 */
export function verifyFleet(fleet: BenchFleet, received: readonly ReceivedCall[]): LoadVerdict {
  return verifyReceivedCalls(fleet.db, received);
}

/** Bytes a stopped fleet's store holds beyond its empty schema, and its calls. */
export function storedBytes(fleet: BenchFleet): { bytes: number; calls: number } {
  const store = openStore({ path: fleet.db, readonly: true });
  try {
    const stats = store.stats();
    return { bytes: stats.bytesOnDisk - fleet.emptyBytes, calls: stats.calls };
  } finally {
    store.close();
  }
}
