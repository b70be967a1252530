/**
 * bench/parquet-writers: the Parquet library choice for `tokentap export` (docs/export.md, "File formats and the
 * Parquet library"). Writes the same synthetic samples (by default 5,000 of ~4,000 tokens: list<int32> tokens,
 * list<uint8> loss mask, list<float32> logprobs, scalars and strings) with tokentap's Parquet writer
 * (hyparquet-writer, pure JS, gzip from node:zlib, row groups cut at DEFAULT_ROW_GROUP_VALUES), with the same
 * pipeline at fixed 1,000-row groups in gzip and snappy, with parquet-wasm + apache-arrow (WASM, zstd and snappy,
 * 1,000-row groups), and with tokentap's JSONL writer for reference. Prints rows/s and MB/s of file per CPU second,
 * file size, peak RSS, row groups and the DuckDB types of the three list columns for each, then the ratios against
 * tokentap's Parquet writer. Each writer runs in its own process so its peak RSS is its own. Plain text.
 *
 *   npm run build && node dist/bench/parquet-writers.js [--samples 5000 --tokens 4000]
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeSync, openSync, closeSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Field, Float32, Float64, Int32, List, RecordBatch, Table, Uint8, Utf8, makeData, tableToIPC, vectorFromArray } from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import { ParquetWriter } from 'hyparquet-writer';
import { Compression, Table as WasmTable, WriterPropertiesBuilder, transformParquetStream } from 'parquet-wasm';
import { createSeededRandom } from '../sim/seeded-random.js';
import type { ColumnSpec, ExportRow } from '../trainer-adapters/trainer-adapter.js';
import { createRecordWriter } from '../export/writers/record-writer.js';
import { FileByteWriter } from '../export/writers/file-byte-writer.js';
import { PARQUET_COLUMN_VALUES } from '../export/writers/parquet-column-values.js';
import { parquetSchemaOf } from '../export/writers/parquet-schema.js';
import { openTempOutputFile } from '../export/writers/temp-output-file.js';

const WRITERS = [
  'tokentap parquet (hyparquet-writer, gzip)',
  'hyparquet-writer, gzip, 1,000-row groups',
  'hyparquet-writer, snappy, 1,000-row groups',
  'parquet-wasm + arrow, zstd, 1,000-row groups',
  'parquet-wasm + arrow, snappy, 1,000-row groups',
  'tokentap jsonl',
] as const;
type WriterName = (typeof WRITERS)[number];
const ROW_GROUP_ROWS = 1_000;
const WIDTH = 48;
const POOL = 200; // distinct synthetic samples, cycled, so the generator's memory does not weigh on peak RSS

const COLUMNS: ColumnSpec[] = [
  { name: 'uid', type: 'string', description: 'group key' },
  { name: 'tokens', type: 'int32[]', description: 'prompt + response ids' },
  { name: 'loss_mask', type: 'uint8[]', description: '1 on trained tokens' },
  { name: 'logprobs', type: 'float32[]', description: 'sampling logprobs, 0 off the mask' },
  { name: 'prompt_length', type: 'int32', description: 'tokens before the first trained one' },
  { name: 'reward', type: 'float64', description: 'rollout reward' },
  { name: 'status', type: 'string', description: 'sample status' },
  { name: 'policy_version', type: 'string', nullable: true, description: 'policy version of the trained tokens' },
];

interface Measurement {
  writer: WriterName;
  rows: number;
  seconds: number;
  cpuSeconds: number;
  bytes: number;
  peakRssMb: number;
  rowGroups: string;
  listTypes: string;
}

/** Samples shaped like an agent turn: a prompt, then alternating trained (assistant) and untrained (tool) spans. */
function syntheticRows(tokens: number): ExportRow[] {
  const random = createSeededRandom(7);
  return Array.from({ length: POOL }, (_, index) => {
    const length = random.integer(Math.floor(tokens * 0.75), Math.floor(tokens * 1.25));
    const promptLength = Math.floor(length / 4);
    const ids = new Int32Array(length);
    const mask = new Uint8Array(length);
    const logprobs = new Float32Array(length);
    for (let position = 0; position < length; position += 1) {
      // token frequencies are heavy-tailed: log-uniform ids over a 151K vocabulary
      ids[position] = Math.floor(151_000 ** random.next());
      mask[position] = position >= promptLength && Math.floor((position - promptLength) / 300) % 2 === 0 ? 1 : 0;
      // sampled tokens are mostly near-certain: logprobs cluster near 0 with a tail
      if (mask[position] === 1) logprobs[position] = Math.log(1 - random.next() * (random.chance(0.8) ? 0.05 : 0.99));
    }
    return {
      uid: `group-${index % 50}`,
      tokens: ids,
      loss_mask: mask,
      logprobs,
      prompt_length: promptLength,
      reward: random.next(),
      status: 'complete',
      policy_version: index % 3 === 0 ? null : `v${index % 7}`,
    };
  });
}

function rowAt(pool: ExportRow[], index: number): ExportRow {
  return { ...pool[index % pool.length], uid: `${String(pool[index % pool.length]!.uid)}-${index}` };
}

async function writeWithTokentap(path: string, pool: ExportRow[], samples: number): Promise<void> {
  const writer = createRecordWriter({ path, columns: COLUMNS, metadata: { format: 'bench' }, rowGroupRows: ROW_GROUP_ROWS });
  for (let index = 0; index < samples; index += 1) await writer.write(rowAt(pool, index));
  await writer.close();
}

/** tokentap's Parquet pipeline without its cut at DEFAULT_ROW_GROUP_VALUES, with either codec. */
function writeWithHyparquet(path: string, pool: ExportRow[], samples: number, codec: 'GZIP' | 'SNAPPY'): void {
  const file = openTempOutputFile(path, { force: true });
  const parquet = new ParquetWriter({
    writer: new FileByteWriter(file),
    schema: parquetSchemaOf(COLUMNS),
    codec,
    compressors: { GZIP: (input) => gzipSync(input, { level: 1 }) },
    kvMetadata: [{ key: 'format', value: 'bench' }],
  });
  for (let start = 0; start < samples; start += ROW_GROUP_ROWS) {
    const rows = Array.from({ length: Math.min(ROW_GROUP_ROWS, samples - start) }, (_, offset) => rowAt(pool, start + offset));
    const columnData = COLUMNS.map((column) => ({
      name: column.name,
      data: rows.map((row) => (row[column.name] === null ? null : PARQUET_COLUMN_VALUES[column.type](row[column.name]))),
      statistics: !column.type.endsWith('[]'),
    }));
    void parquet.write({ columnData, rowGroupSize: rows.length });
  }
  void parquet.finish();
  file.commit();
}

/** Arrow record batches built column-wise (typed-array values + offsets), streamed through parquet-wasm. */
async function writeWithParquetWasm(path: string, pool: ExportRow[], samples: number, compression: Compression): Promise<void> {
  const properties = new WriterPropertiesBuilder()
    .setCompression(compression)
    .setMaxRowGroupSize(ROW_GROUP_ROWS)
    .setKeyValueMetadata(new Map([['format', 'bench']]))
    .build();
  let start = 0;
  const batches = new ReadableStream({
    pull(controller) {
      if (start >= samples) return controller.close();
      const rows = Array.from({ length: Math.min(ROW_GROUP_ROWS, samples - start) }, (_, offset) => rowAt(pool, start + offset));
      start += rows.length;
      controller.enqueue(WasmTable.fromIPCStream(tableToIPC(new Table(arrowBatch(rows)), 'stream')).recordBatch(0));
    },
  });
  const output = await transformParquetStream(batches, properties);
  const descriptor = openSync(path, 'w');
  try {
    for await (const chunk of output as unknown as AsyncIterable<Uint8Array>) writeSync(descriptor, chunk);
  } finally {
    closeSync(descriptor);
  }
}

function arrowBatch(rows: ExportRow[]): RecordBatch {
  // typed as Int32 for makeData's overloads; the Data carries the real element type
  const list = (name: string, type: Int32 | Uint8 | Float32, Values: { new (length: number): Int32Array | Uint8Array | Float32Array }) => {
    const arrays = rows.map((row) => row[name] as Int32Array | Uint8Array | Float32Array);
    const offsets = new Int32Array(rows.length + 1);
    arrays.forEach((array, index) => {
      offsets[index + 1] = offsets[index]! + array.length;
    });
    const values = new Values(offsets[rows.length]!);
    arrays.forEach((array, index) => values.set(array, offsets[index]));
    const child = makeData({ type: type as Int32, length: values.length, data: values as Int32Array });
    return makeData({ type: new List(new Field('element', type as Int32, false)), length: rows.length, nullCount: 0, valueOffsets: offsets, child });
  };
  const strings = (name: string) =>
    vectorFromArray(
      rows.map((row) => row[name] as string | null),
      new Utf8(),
    ).data[0]!;
  return new RecordBatch({
    uid: strings('uid'),
    tokens: list('tokens', new Int32(), Int32Array),
    loss_mask: list('loss_mask', new Uint8(), Uint8Array),
    logprobs: list('logprobs', new Float32(), Float32Array),
    prompt_length: makeData({ type: new Int32(), length: rows.length, data: Int32Array.from(rows, (row) => row.prompt_length as number) }),
    reward: makeData({ type: new Float64(), length: rows.length, data: Float64Array.from(rows, (row) => row.reward as number) }),
    status: strings('status'),
    policy_version: strings('policy_version'),
  });
}

/** What DuckDB sees: the row groups and the types of the three list columns. */
async function inspect(path: string): Promise<{ rowGroups: string; listTypes: string }> {
  if (path.endsWith('.jsonl')) return { rowGroups: '-', listTypes: '-' };
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const described = await connection.runAndReadAll('DESCRIBE SELECT tokens, loss_mask, logprobs FROM read_parquet($1)', [path]);
  const groups = await connection.runAndReadAll('SELECT count(DISTINCT row_group_id) AS groups FROM parquet_metadata($1)', [path]);
  const result = {
    rowGroups: String(groups.getRowObjectsJS()[0]!.groups),
    listTypes: described
      .getRowObjectsJS()
      .map((row) => String(row.column_type))
      .join(' '),
  };
  connection.closeSync();
  instance.closeSync();
  return result;
}

/** Runs in the child: one writer over all samples. */
async function measure(writer: WriterName, samples: number, tokens: number, folder: string): Promise<Measurement> {
  const pool = syntheticRows(tokens);
  const path = join(folder, `${WRITERS.indexOf(writer)}.${writer.endsWith('jsonl') ? 'jsonl' : 'parquet'}`);
  rmSync(path, { force: true });
  const started = process.hrtime.bigint();
  const startedCpu = process.cpuUsage();
  if (writer.startsWith('tokentap')) await writeWithTokentap(path, pool, samples);
  else if (writer.startsWith('hyparquet-writer')) writeWithHyparquet(path, pool, samples, writer.includes('gzip') ? 'GZIP' : 'SNAPPY');
  else await writeWithParquetWasm(path, pool, samples, writer.includes('zstd') ? Compression.ZSTD : Compression.SNAPPY);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(startedCpu);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  return {
    writer,
    rows: samples,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    bytes: statSync(path).size,
    peakRssMb,
    ...(await inspect(path)),
  };
}

function measureInChild(writer: WriterName, samples: number, tokens: number, folder: string): Measurement {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', writer, String(samples), String(tokens), folder], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`measuring ${writer} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Measurement;
}

function option(args: string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  return index === -1 ? fallback : Number(args[index + 1]);
}

function main(args: string[]): void {
  const samples = option(args, '--samples', 5_000);
  const tokens = option(args, '--tokens', 4_000);
  const folder = mkdtempSync(join(tmpdir(), 'tokentap-bench-parquet-'));
  const lines = [`parquet-writers: ${samples} samples of ~${tokens} tokens (list<int32>, list<uint8>, list<float32>, 5 scalar/string columns)`, ''];
  lines.push(`${'writer'.padEnd(WIDTH)}   rows/s    MB/s   cpu s  wall s   fileMB  peakMB  groups  DuckDB list types`);
  const results = WRITERS.map((writer) => measureInChild(writer, samples, tokens, folder));
  for (const result of results) {
    const figures = [
      (result.rows / result.cpuSeconds).toFixed(0).padStart(8),
      (result.bytes / 1e6 / result.cpuSeconds).toFixed(1).padStart(7),
      result.cpuSeconds.toFixed(1).padStart(7),
      result.seconds.toFixed(1).padStart(7),
      (result.bytes / 1e6).toFixed(1).padStart(8),
      result.peakRssMb.toFixed(0).padStart(7),
    ];
    lines.push(`${result.writer.padEnd(WIDTH)} ${figures.join(' ')} ${result.rowGroups.padStart(7)}  ${result.listTypes}`);
  }
  const base = results[0]!;
  lines.push('', `against ${base.writer}:`);
  for (const result of results.slice(1)) {
    lines.push(
      `  ${result.writer.padEnd(WIDTH - 2)} speed x${(base.cpuSeconds / result.cpuSeconds).toFixed(2)}, file size x${(result.bytes / base.bytes).toFixed(2)}, peak RSS x${(result.peakRssMb / base.peakRssMb).toFixed(2)}`,
    );
  }
  lines.push('', 'rows/s and MB/s (of file written) per CPU second (user + system, all threads), as the machine may be shared; wall s');
  lines.push('for reference. speed x>1: faster than tokentap parquet (CPU time). peakMB: each');
  lines.push("writer's own peak RSS (each runs in its own process), synthetic pool of 200 samples included.");
  rmSync(folder, { recursive: true, force: true });
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[2] === '--measure') {
  const [writer, samples, tokens, folder] = process.argv.slice(3) as [WriterName, string, string, string];
  process.stdout.write(JSON.stringify(await measure(writer, Number(samples), Number(tokens), folder)));
} else main(process.argv.slice(2));
