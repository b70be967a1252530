import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInvalidExportValue } from '../../../export/writers/invalid-export-value.js';
import { createRecordWriter } from '../../../export/writers/record-writer.js';
import type { ColumnSpec, ExportRow } from '../../../trainer-adapters/trainer-adapter.js';
import { readParquetWithDuckDb } from '../../helpers/read-parquet-with-duckdb.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { ALL_TYPES, ALL_TYPES_IN_DUCKDB, allTypesRows } from './writer-fixtures.js';

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  folder = makeTempDir('tokentap-parquet-');
});
afterEach(() => folder.remove());

const METADATA = { schema_version: '1', format: 'verl', tokenizer_hash: 'sha256:abc', filters: '{"split":"train"}', note: 'ünïcode' };

async function writeParquet(
  columns: readonly ColumnSpec[],
  rows: ExportRow[],
  groups: { rowGroupRows?: number; rowGroupValues?: number } = {},
): Promise<string> {
  const path = folder.file('out.parquet');
  const writer = createRecordWriter({ path, columns, metadata: METADATA, ...groups });
  for (const row of rows) await writer.write(row);
  expect((await writer.close()).rows).toBe(rows.length);
  return path;
}

/** A row value as DuckDB gives it back: lists as arrays, float32 widened exactly, json as its text. */
function expectedFromDuckDb(column: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'float32') return Math.fround(value as number);
  if (column.type === 'float32[]') return Array.from(value as ArrayLike<number>, Math.fround);
  if (column.type === 'json') return JSON.stringify(value);
  if (column.type.endsWith('[]')) return Array.from(value as ArrayLike<number>);
  return value;
}

async function rowGroupSizes(path: string): Promise<number[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const result = await connection.runAndReadAll(
      'SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata($1) ORDER BY row_group_id',
      [path],
    );
    return result.getRowObjectsJS().map((row) => Number(row.row_group_num_rows));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('Parquet writer', () => {
  it('writes every column type as the list and scalar types DuckDB reads back, value for value', async () => {
    const rows = allTypesRows();
    const { columns, rows: read } = await readParquetWithDuckDb(await writeParquet(ALL_TYPES, rows));
    expect(columns).toEqual(ALL_TYPES.map((column, index) => ({ name: column.name, type: ALL_TYPES_IN_DUCKDB[index] })));
    expect(read).toHaveLength(rows.length);
    read.forEach((row, index) => {
      for (const column of ALL_TYPES)
        expect(row[column.name], `${column.name} of row ${index}`).toEqual(expectedFromDuckDb(column, rows[index]![column.name]));
    });
  });

  it('stores every metadata entry as file key-value metadata', async () => {
    const { metadata } = await readParquetWithDuckDb(await writeParquet(ALL_TYPES, allTypesRows()));
    expect(metadata).toEqual(METADATA);
  });

  it('keeps int64 values beyond 2^53 exact (bigint in, bigint out)', async () => {
    const columns: ColumnSpec[] = [
      { name: 'step', type: 'int64', description: '' },
      { name: 'ids', type: 'int64[]', description: '' },
    ];
    const { rows } = await readParquetWithDuckDb(await writeParquet(columns, [{ step: 2n ** 62n + 1n, ids: BigInt64Array.of(-(2n ** 63n), 5n) }]));
    expect(rows).toEqual([{ step: 2n ** 62n + 1n, ids: [-(2n ** 63n), 5] }]);
  });

  it('cuts a row group every rowGroupRows rows and keeps the rows in order', async () => {
    const columns: ColumnSpec[] = [
      { name: 'index', type: 'int32', description: '' },
      { name: 'ids', type: 'int32[]', description: '' },
    ];
    const rows = Array.from({ length: 10 }, (_, index) => ({
      index,
      ids: Int32Array.from({ length: index }, (_unused, position) => index * 100 + position),
    }));
    const path = await writeParquet(columns, rows, { rowGroupRows: 3 });
    expect(await rowGroupSizes(path)).toEqual([3, 3, 3, 1]);
    const { rows: read } = await readParquetWithDuckDb(path);
    expect(read).toEqual(rows.map((row) => ({ index: row.index, ids: Array.from(row.ids) })));
  });

  it('cuts a row group early once its list columns hold rowGroupValues values (memory bound for long samples)', async () => {
    const columns: ColumnSpec[] = [
      { name: 'ids', type: 'int32[]', description: '' },
      { name: 'mask', type: 'uint8[]', description: '' },
      { name: 'reward', type: 'float64', description: '' },
    ];
    // 4 + 4 list values per row: a 20-value bound closes groups after 3 rows (24 values)
    const rows = Array.from({ length: 7 }, (_, index) => ({ ids: Int32Array.of(1, 2, 3, index), mask: Uint8Array.of(0, 1, 1, 1), reward: index }));
    const path = await writeParquet(columns, rows, { rowGroupRows: 1_000, rowGroupValues: 20 });
    expect(await rowGroupSizes(path)).toEqual([3, 3, 1]);
    expect((await readParquetWithDuckDb(path)).rows.map((row) => row.reward)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('writes a valid file with the schema and metadata when there are no rows', async () => {
    const path = await writeParquet(ALL_TYPES, []);
    const { columns, rows, metadata } = await readParquetWithDuckDb(path);
    expect(columns.map((column) => column.type)).toEqual(ALL_TYPES_IN_DUCKDB);
    expect(rows).toEqual([]);
    expect(metadata).toEqual(METADATA);
    expect(await rowGroupSizes(path)).toEqual([]);
  });

  it('refuses NaN and wrong types as JSONL does, and keeps no part of a refused row', async () => {
    const columns: ColumnSpec[] = [
      { name: 'id', type: 'int32', description: '' },
      { name: 'logprobs', type: 'float32[]', description: '' },
    ];
    const path = folder.file('out.parquet');
    const writer = createRecordWriter({ path, columns, metadata: {} });
    await writer.write({ id: 1, logprobs: Float32Array.of(-1) });
    expect(() => writer.write({ id: 2, logprobs: Float32Array.of(Number.NaN) })).toThrow(expect.toSatisfy(isInvalidExportValue));
    expect(() => writer.write({ id: 'two', logprobs: Float32Array.of(-2) })).toThrow('row 2, column id: expected an int32, got string two');
    await writer.write({ id: 3, logprobs: Float32Array.of(-3) });
    await writer.close();
    expect((await readParquetWithDuckDb(path)).rows).toEqual([
      { id: 1, logprobs: [-1] },
      { id: 3, logprobs: [-3] },
    ]);
  });

  it('copies typed arrays at write, so a caller may reuse its buffers', async () => {
    const columns: ColumnSpec[] = [{ name: 'ids', type: 'int32[]', description: '' }];
    const path = folder.file('out.parquet');
    const writer = createRecordWriter({ path, columns, metadata: {} });
    const reused = Int32Array.of(1, 2);
    await writer.write({ ids: reused });
    reused.set([7, 8]);
    await writer.write({ ids: reused });
    await writer.close();
    expect((await readParquetWithDuckDb(path)).rows).toEqual([{ ids: [1, 2] }, { ids: [7, 8] }]);
  });
});
