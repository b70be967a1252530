import { expect } from 'vitest';
import { createRecordWriter } from '../../export/writers/record-writer.js';
import type { ColumnSpec, ColumnType, ExportRow, TrainerAdapter } from '../../trainer-adapters/index.js';
import { readParquetWithDuckDb } from '../helpers/read-parquet-with-duckdb.js';

/** The DuckDB type a trainer's reader sees for each column type (trainer-adapters/trainer-adapter.ts). */
const DUCKDB_TYPES: Record<ColumnType, string> = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  int64: 'BIGINT',
  float32: 'FLOAT',
  float64: 'DOUBLE',
  bool: 'BOOLEAN',
  'int32[]': 'INTEGER[]',
  'int64[]': 'BIGINT[]',
  'float32[]': 'FLOAT[]',
  'uint8[]': 'UTINYINT[]',
  'string[]': 'VARCHAR[]',
  json: 'JSON',
};

/** A row value as DuckDB gives it back: arrays plain, float32 scalars rounded to float32, JSON as the value. */
function expectedValue(value: unknown, column: ColumnSpec): unknown {
  if (value === null) return null;
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  if (column.type === 'float32') return Math.fround(value as number);
  return value;
}

/**
 * Writes the rows to Parquet with the export's record writer and reads them back with DuckDB (an independent
 * reader): the schema has the columns in order with their list types, and every value comes back equal.
 */
export async function expectParquetRoundTrip(adapter: TrainerAdapter, rows: readonly ExportRow[], path: string): Promise<void> {
  const writer = createRecordWriter({ path, columns: adapter.columns, metadata: { format: adapter.format, shape: adapter.shape ?? '' } });
  for (const row of rows) await writer.write(row);
  await writer.close();
  const contents = await readParquetWithDuckDb(path);
  expect(contents.columns).toEqual(adapter.columns.map((column) => ({ name: column.name, type: DUCKDB_TYPES[column.type] })));
  expect(contents.rows).toHaveLength(rows.length);
  expect(contents.metadata).toMatchObject({ format: adapter.format, shape: adapter.shape ?? '' });
  for (const [index, row] of rows.entries()) {
    for (const column of adapter.columns) {
      const read = contents.rows[index]![column.name];
      const value = column.type === 'json' && typeof read === 'string' ? JSON.parse(read) : read;
      expect(value, `${adapter.format} ${adapter.shape ?? ''} row ${index} column ${column.name}`).toEqual(expectedValue(row[column.name], column));
    }
  }
}
