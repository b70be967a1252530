/**
 * bench/export: `exportDataset` over the synthetic store (bench/make-store.ts) into JSONL and Parquet, at two
 * sizes (a quarter of the sessions, then all), each run in its own process so its peak RSS is its own. Prints
 * samples/s, MB/s of output, peak RSS, and the ratio to a plain sequential write of the same number of bytes (the
 * floor: what the disk alone costs). Memory should stay flat from the small size to the large one.
 * `--engine postgres` (or `both`) exports the same stores from PostgreSQL: each size's SQLite store is copied into a
 * database of its own with `copyStore` (what `tokentap migrate` runs), on a throw-away server
 * (scripts/start-postgres.sh) or the one at `--postgres URL` (it must allow CREATE DATABASE).
 *
 *   npm run build && node dist/bench/export.js [--sessions 10000 --turns 10 --system-tokens 1024 --turn-tokens 200]
 *                                              [--engine sqlite|postgres|both] [--postgres URL]
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exportDataset } from '../export/export-dataset.js';
import { copyStore } from '../store/copy-store.js';
import { openStore } from '../store/index.js';
import { makeBenchStore, type BenchStoreParams } from './make-store.js';
import { startBenchPostgres, type BenchPostgres } from './postgres-server.js';

const FILE_TYPES = ['jsonl', 'parquet'] as const;
type FileType = (typeof FILE_TYPES)[number];

const ENGINES = { sqlite: ['sqlite'], postgres: ['postgres'], both: ['sqlite', 'postgres'] } as const;
type Engine = 'sqlite' | 'postgres';

interface Measurement {
  engine: Engine;
  fileType: FileType;
  sessions: number;
  samples: number;
  tokens: number;
  bytes: number;
  seconds: number;
  /** CPU seconds (user + system) of the export: on a busy machine the per-core figure wall time cannot give */
  cpuSeconds: number;
  peakRssMb: number;
  /** seconds to write the same number of bytes sequentially in 1 MB chunks */
  floorSeconds: number;
}

/** In the child: one export of the whole store, then the floor write of as many bytes. */
async function measure(storePath: string, engine: Engine, fileType: FileType, sessions: number): Promise<Measurement> {
  const out = join('.tmp', `bench-export-${process.pid}.${fileType}`);
  const store = openStore({ path: storePath, readonly: true });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { summary } = await exportDataset(store, { format: fileType, out, force: true, strategy: 'merge', advantage: { estimator: 'none' } });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  store.close();
  rmSync(out, { force: true });
  return {
    engine,
    fileType,
    sessions,
    samples: summary.samples,
    tokens: summary.tokens,
    bytes: summary.bytes,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    floorSeconds: sequentialWrite(summary.bytes, join('.tmp', `bench-floor-${process.pid}.bin`)),
  };
}

function sequentialWrite(bytes: number, path: string): number {
  const chunk = Buffer.alloc(1 << 20, 0x31);
  const started = performance.now();
  const fd = openSync(path, 'w');
  for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
  fsyncSync(fd);
  closeSync(fd);
  const seconds = (performance.now() - started) / 1000;
  rmSync(path, { force: true });
  return seconds;
}

function row(measurement: Measurement): string {
  const megabytes = measurement.bytes / 1e6;
  const cells = [
    measurement.engine.padEnd(8),
    measurement.fileType.padEnd(8),
    String(measurement.sessions).padStart(8),
    String(measurement.samples).padStart(8),
    (measurement.tokens / 1e6).toFixed(1).padStart(8),
    megabytes.toFixed(0).padStart(8),
    (measurement.samples / measurement.seconds).toFixed(0).padStart(10),
    (megabytes / measurement.seconds).toFixed(1).padStart(8),
    (megabytes / measurement.cpuSeconds).toFixed(1).padStart(10),
    measurement.peakRssMb.toFixed(0).padStart(8),
    (measurement.seconds / measurement.floorSeconds).toFixed(1).padStart(10),
  ];
  return cells.join('  ');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string', default: '10000' },
      turns: { type: 'string', default: '10' },
      'system-tokens': { type: 'string', default: '1024' },
      'turn-tokens': { type: 'string', default: '200' },
      engine: { type: 'string', default: 'sqlite' },
      postgres: { type: 'string' },
      child: { type: 'string' },
      store: { type: 'string' },
      'child-engine': { type: 'string' },
      'file-type': { type: 'string' },
    },
  });
  if (values.child !== undefined) {
    const measurement = await measure(
      values.store as string,
      values['child-engine'] as Engine,
      values['file-type'] as FileType,
      Number(values.child),
    );
    process.stdout.write(JSON.stringify(measurement));
    return;
  }
  if (!Object.hasOwn(ENGINES, values.engine)) {
    process.stderr.write(`bench/export: --engine is sqlite, postgres or both, not ${values.engine}\n`);
    process.exitCode = 2;
    return;
  }
  const engines: readonly Engine[] = ENGINES[values.engine as keyof typeof ENGINES];
  mkdirSync('.tmp', { recursive: true });
  let postgres: BenchPostgres | null = null;
  let workDir: string | null = null;
  if (engines.includes('postgres')) {
    workDir = mkdtempSync(join(tmpdir(), 'tokentap-bench-export-'));
    chmodSync(workDir, 0o755); // the cluster's `postgres` user must reach its folder when the bench runs as root
    postgres = startBenchPostgres({ folder: join(workDir, 'pg'), ...(values.postgres === undefined ? {} : { url: values.postgres }) });
  }
  try {
    await runSizes(values, engines, postgres);
  } finally {
    postgres?.stop();
    if (workDir !== null) rmSync(workDir, { recursive: true, force: true });
  }
}

async function runSizes(
  values: { sessions: string; turns: string; 'system-tokens': string; 'turn-tokens': string },
  engines: readonly Engine[],
  postgres: BenchPostgres | null,
): Promise<void> {
  const largest = Number(values.sessions);
  const sizes = [Math.max(1, Math.floor(largest / 4)), largest];
  process.stdout.write(
    `bench/export: merge strategy, generic columns, ${values.turns} turns per session, ${values['system-tokens']}-token system prompt, ${values['turn-tokens']} tokens per turn\n`,
  );
  process.stdout.write(
    `${['engine', 'file', 'sessions', 'samples', 'Mtokens', 'MB', 'samples/s', 'MB/s', 'MB/cpu-s', 'peakMB', 'x floor'].map((cell, index) => (index <= 1 ? cell.padEnd(8) : cell.padStart(index === 6 || index === 8 || index === 10 ? 10 : 8))).join('  ')}\n`,
  );
  for (const sessions of sizes) {
    const params: BenchStoreParams = {
      sessions,
      turns: Number(values.turns),
      systemTokens: Number(values['system-tokens']),
      turnTokens: Number(values['turn-tokens']),
      driftRate: 0.05,
    };
    const storePath = makeBenchStore(params);
    const stores: Record<Engine, string> = { sqlite: storePath, postgres: '' };
    if (postgres !== null) {
      // the same calls, copied as `tokentap migrate` copies them (and verified by its digest)
      stores.postgres = postgres.createDatabase(`bench_export_${sessions}`);
      await copyStore({ from: storePath, to: stores.postgres, isGatewayLive: () => false });
    }
    for (const engine of engines) {
      for (const fileType of FILE_TYPES) {
        const child = spawnSync(
          process.execPath,
          [fileURLToPath(import.meta.url), '--child', String(sessions), '--store', stores[engine], '--child-engine', engine, '--file-type', fileType],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        if (child.status !== 0) throw new Error(`export child failed: ${child.stderr}`);
        process.stdout.write(`${row(JSON.parse(child.stdout) as Measurement)}\n`);
      }
    }
  }
  process.stdout.write('MB/cpu-s: output MB per CPU second of the export (user + system), the per-core rate a busy machine hides\n');
  process.stdout.write('x floor: export time / time to write the same bytes sequentially (1 MB chunks + fsync) on this disk\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
