import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { exportDataset } from '../export/export-dataset.js';
import { openStore } from '../store/index.js';
import { writeBenchSessions, type BenchStoreParams } from './make-store.js';
import type { BenchEngine } from './postgres-setups.js';

export const EXPORT_FILE_TYPES = ['jsonl', 'parquet'] as const;
export type ExportFileType = (typeof EXPORT_FILE_TYPES)[number];

/** One engine's copy of the synthetic store: how fast it was written and what it costs. */
export interface EngineStore {
  engine: BenchEngine;
  db: string;
  calls: number;
  /** stats().bytesOnDisk beyond the empty schema's */
  bytes: number;
  /** seconds writeBenchSessions took through the Store API (one transaction per session) */
  writeSeconds: number;
}

/** The exports of one engine's store in one file type, every round summed. */
export interface ExportFigures {
  engine: BenchEngine;
  fileType: ExportFileType;
  bytes: number;
  samples: number;
  seconds: number;
  cpuSeconds: number;
}

/**
 * Writes the synthetic sessions of `params` (bench/make-store.ts, one seed) into `db` through the Store API and
 * measures what they cost on disk beyond the empty schema.
 *
 * @example const sqlite = fillEngineStore('sqlite', join(workDir, 'export.db'), params);
 */
export function fillEngineStore(engine: BenchEngine, db: string, params: BenchStoreParams): EngineStore {
  const store = openStore({ path: db });
  try {
    const emptyBytes = store.stats().bytesOnDisk;
    const startedAt = performance.now();
    writeBenchSessions(store, params);
    const writeSeconds = (performance.now() - startedAt) / 1000;
    store.close();
    // read once the writer closed: SQLite's WAL is checkpointed into the file by then
    const reader = openStore({ path: db, readonly: true });
    const stats = reader.stats();
    reader.close();
    return { engine, db, calls: stats.calls, bytes: stats.bytesOnDisk - emptyBytes, writeSeconds };
  } catch (error) {
    store.close();
    throw error;
  }
}

/** One export of a whole store with the real export path (export/export-dataset.ts, as `tokentap export` runs it). */
async function exportOnce(store: EngineStore, fileType: ExportFileType, out: string): Promise<ExportFigures> {
  const reader = openStore({ path: store.db, readonly: true });
  try {
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    const { summary } = await exportDataset(reader, { format: fileType, out, force: true, strategy: 'merge', advantage: { estimator: 'none' } });
    const cpu = process.cpuUsage(cpuBefore);
    return {
      engine: store.engine,
      fileType,
      bytes: summary.bytes,
      samples: summary.samples,
      seconds: (performance.now() - startedAt) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    reader.close();
    rmSync(out, { force: true });
  }
}

/**
 * Exports each store in each file type, `rounds` times, the engines alternating (the first going first on odd rounds),
 * so drift falls on both alike; figures are summed per engine and file type.
 *
 * @example const figures = await measureExports([sqlite, postgres], 2, workDir);
 */
export async function measureExports(stores: readonly EngineStore[], rounds: number, workDir: string): Promise<ExportFigures[]> {
  const totals = new Map<string, ExportFigures>();
  for (let round = 0; round < rounds; round++) {
    for (const fileType of EXPORT_FILE_TYPES) {
      const order = round % 2 === 0 ? stores : [...stores].reverse();
      for (const store of order) {
        const figures = await exportOnce(store, fileType, join(workDir, `export-${store.engine}.${fileType}`));
        const key = `${store.engine}/${fileType}`;
        const total = totals.get(key);
        if (total === undefined) totals.set(key, figures);
        else for (const field of ['bytes', 'samples', 'seconds', 'cpuSeconds'] as const) total[field] += figures[field];
      }
    }
  }
  return [...totals.values()];
}
