/**
 * bench/export: `exportDataset` over the synthetic store (bench/make-store.ts) into JSONL and Parquet, at two
 * sizes (a quarter of the sessions, then all), each run in its own process so its peak RSS is its own. Prints
 * samples/s, MB/s of output, peak RSS, and the ratio to a plain sequential write of the same number of bytes (the
 * floor: what the disk alone costs). Memory should stay flat from the small size to the large one.
 *
 *   npm run build && node dist/bench/export.js [--sessions 10000 --turns 10 --system-tokens 1024 --turn-tokens 200]
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exportDataset } from '../export/export-dataset.js';
import { openStore } from '../store/index.js';
import { makeBenchStore, type BenchStoreParams } from './make-store.js';

const FILE_TYPES = ['jsonl', 'parquet'] as const;
type FileType = (typeof FILE_TYPES)[number];

interface Measurement {
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
async function measure(storePath: string, fileType: FileType, sessions: number): Promise<Measurement> {
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
      child: { type: 'string' },
      store: { type: 'string' },
      'file-type': { type: 'string' },
    },
  });
  if (values.child !== undefined) {
    const measurement = await measure(values.store as string, values['file-type'] as FileType, Number(values.child));
    process.stdout.write(JSON.stringify(measurement));
    return;
  }
  mkdirSync('.tmp', { recursive: true });
  const largest = Number(values.sessions);
  const sizes = [Math.max(1, Math.floor(largest / 4)), largest];
  process.stdout.write(
    `bench/export: merge strategy, generic columns, ${values.turns} turns per session, ${values['system-tokens']}-token system prompt, ${values['turn-tokens']} tokens per turn\n`,
  );
  process.stdout.write(
    `${['file', 'sessions', 'samples', 'Mtokens', 'MB', 'samples/s', 'MB/s', 'MB/cpu-s', 'peakMB', 'x floor'].map((cell, index) => (index === 0 ? cell.padEnd(8) : cell.padStart(index === 5 || index === 7 || index === 9 ? 10 : 8))).join('  ')}\n`,
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
    for (const fileType of FILE_TYPES) {
      const child = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), '--child', String(sessions), '--store', storePath, '--file-type', fileType],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      if (child.status !== 0) throw new Error(`export child failed: ${child.stderr}`);
      process.stdout.write(`${row(JSON.parse(child.stdout) as Measurement)}\n`);
    }
  }
  process.stdout.write('MB/cpu-s: output MB per CPU second of the export (user + system), the per-core rate a busy machine hides\n');
  process.stdout.write('x floor: export time / time to write the same bytes sequentially (1 MB chunks + fsync) on this disk\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
