import { DuckDBInstance, type JS } from '@duckdb/node-api';

/** What DuckDB reads from a Parquet file: its schema, its rows and its key-value metadata. */
export interface ParquetContents {
  /** column names and DuckDB types in file order, e.g. `{ name: 'prompt_ids', type: 'INTEGER[]' }` */
  columns: Array<{ name: string; type: string }>;
  /** rows in file order; lists as plain arrays, BIGINT as number when it is a safe integer, NULL as null */
  rows: Array<Record<string, unknown>>;
  /** the file's key-value metadata, keys and values decoded as UTF-8 */
  metadata: Record<string, string>;
}

/**
 * Reads a Parquet file with DuckDB (an independent reader, not the library that wrote it), for golden tests
 * that compare a dataset value for value: `DESCRIBE` gives the types a trainer's reader would see (INTEGER[],
 * UTINYINT[], FLOAT[], VARCHAR, JSON...), `read_parquet` the rows, `parquet_kv_metadata` the provenance keys.
 * FLOAT values come back as the double of each float32, so they compare equal to a Float32Array's elements.
 *
 * @example
 * const { columns, rows, metadata } = await readParquetWithDuckDb(file('train.parquet'));
 * expect(columns).toContainEqual({ name: 'response_mask', type: 'UTINYINT[]' });
 * expect(rows[0]!.prompt_ids).toEqual(Array.from(sample.tokens.subarray(0, promptLength)));
 * expect(metadata.format).toBe('verl');
 */
export async function readParquetWithDuckDb(path: string): Promise<ParquetContents> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const described = await connection.runAndReadAll('DESCRIBE SELECT * FROM read_parquet($1)', [path]);
    const columns = described.getRowObjectsJS().map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
    const read = await connection.runAndReadAll('SELECT * FROM read_parquet($1)', [path]);
    const rows = read.getRowObjectsJS().map((row) => toPlain(row) as Record<string, unknown>);
    const pairs = await connection.runAndReadAll('SELECT key, value FROM parquet_kv_metadata($1)', [path]);
    const metadata: Record<string, string> = {};
    for (const pair of pairs.getRowObjectsJS()) metadata[decodeText(pair.key)] = decodeText(pair.value);
    return { columns, rows, metadata };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function toPlain(value: JS): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, toPlain(member)]));
}

function decodeText(value: JS | undefined): string {
  return value instanceof Uint8Array ? new TextDecoder().decode(value) : String(value);
}
