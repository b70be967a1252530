import { gzipSync } from 'node:zlib';
import { ParquetWriter } from 'hyparquet-writer';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { ColumnType } from '../../trainer-adapters/trainer-adapter.js';
import { expected } from './check-column-value.js';
import { invalidValueAtRow, invalidValueWithin, isInvalidExportValue } from './invalid-export-value.js';
import { FileByteWriter } from './file-byte-writer.js';
import { PARQUET_COLUMN_VALUES } from './parquet-column-values.js';
import { parquetSchemaOf } from './parquet-schema.js';
import type { RecordWriter, RecordWriterOptions } from './record-writer-contract.js';
import { openTempOutputFile } from './temp-output-file.js';

/**
 * Rows per row group when rows are small (SFT text, short samples): readers that stream by row group (pyarrow
 * iter_batches, DuckDB, HF datasets) get batches of a useful size.
 */
export const DEFAULT_ROW_GROUP_ROWS = 1_000;

/**
 * List values (summed over the list columns) at which a row group is cut before DEFAULT_ROW_GROUP_ROWS. hyparquet-
 * writer allocates ~100 bytes per list value while it encodes a group and V8 lets the heap grow with it
 * (bench/parquet-writers.ts, 5,000 samples of ~4,000 tokens in three list columns: peak RSS 1,476 MB with 1,000-row
 * groups, 713 MB with this cut at ~330 rows), so the cut bounds memory whatever the sample length, down to a few
 * rows per group for 100K-token agent trajectories. A group of ~330 such samples is still ~5 MB of file.
 */
export const DEFAULT_ROW_GROUP_VALUES = 1_000_000;

/**
 * GZIP at level 1 through node:zlib (native): in bench/parquet-writers.ts it costs the same CPU as hyparquet-writer's
 * built-in JS snappy and gives ~20% smaller files. ZSTD needs node:zlib's zstd (Node >= 22.15), not in Node 20.
 */
const CODEC = 'GZIP';
const COMPRESSORS = { GZIP: (input: Uint8Array): Uint8Array => gzipSync(input, { level: 1 }) };

/**
 * Parquet through hyparquet-writer (pure JS): rows are checked and buffered column by column, and every
 * `rowGroupRows` rows (or `rowGroupValues` list values) become a row group written to a temp file, which
 * close() completes with the footer (schema, `metadata` as key-value metadata) and renames onto `path`.
 * Used by createRecordWriter for `.parquet`.
 *
 * @example
 * const writer = createParquetRecordWriter({ path: 'train.parquet', columns, metadata: { format: 'verl' }, rowGroupRows: 500 });
 * writer.write(row);
 * await writer.close(); // { path, bytes, rows }
 */
export function createParquetRecordWriter(options: RecordWriterOptions): RecordWriter {
  const rowGroupRows = positiveInteger('rowGroupRows', options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS);
  const rowGroupValues = positiveInteger('rowGroupValues', options.rowGroupValues ?? DEFAULT_ROW_GROUP_VALUES);
  const columns = options.columns.map((column) => ({
    name: column.name,
    nullable: column.nullable === true,
    isList: column.type.endsWith('[]'),
    convert: PARQUET_COLUMN_VALUES[column.type as ColumnType],
  }));
  const schema = parquetSchemaOf(options.columns);
  const file = openTempOutputFile(options.path, { force: options.force === true });
  const writer = new FileByteWriter(file);
  const parquet = new ParquetWriter({
    writer,
    schema,
    codec: CODEC,
    compressors: COMPRESSORS,
    kvMetadata: Object.entries(options.metadata).map(([key, value]) => ({ key, value })),
    createdBy: 'tokentap (hyparquet-writer)',
  });
  let buffered = columns.map(() => [] as unknown[]);
  let bufferedRows = 0;
  let bufferedValues = 0;
  let rows = 0;
  let done = false;

  const flushRowGroup = (): void => {
    if (bufferedRows === 0) return;
    // list columns (token ids, masks, logprobs) skip the dictionary trial: it cost a quarter of the writer's time
    // (bench/export profile) for files gzip already shrinks; scalars keep it (group ids repeat)
    const columnData = columns.map((column, index) => ({
      name: column.name,
      data: buffered[index]!,
      statistics: !column.isList,
      ...(column.isList ? { encoding: 'PLAIN' as const } : {}),
    }));
    buffered = columns.map(() => []);
    // one call, one row group: rowGroupSize covers every buffered row
    void parquet.write({ columnData, rowGroupSize: bufferedRows });
    bufferedRows = 0;
    bufferedValues = 0;
  };

  return {
    write(row) {
      if (done) throw new Error(`${file.path}: write after close or abort`);
      // convert the whole row before buffering any of it, so a refused row leaves no partial row behind
      const values = new Array<unknown>(columns.length);
      let listValues = 0;
      columns.forEach((column, index) => {
        const value = row[column.name];
        try {
          if (value === null || value === undefined) {
            if (!column.nullable) throw expected('a value (the column is not nullable)', value);
            values[index] = null;
            return;
          }
          values[index] = column.convert(value);
          if (column.isList) listValues += (values[index] as unknown[]).length;
        } catch (error) {
          throw isInvalidExportValue(error) ? invalidValueAtRow(invalidValueWithin(error, column.name), rows + 1) : error;
        }
      });
      values.forEach((value, index) => buffered[index]!.push(value));
      rows += 1;
      bufferedRows += 1;
      bufferedValues += listValues;
      if (bufferedRows >= rowGroupRows || bufferedValues >= rowGroupValues) flushRowGroup();
    },
    async close() {
      if (done) throw new Error(`${file.path}: close after close or abort`);
      done = true;
      try {
        flushRowGroup();
        void parquet.finish();
        file.commit();
      } catch (error) {
        file.abort();
        throw error;
      }
      return { path: file.path, bytes: file.bytes, rows };
    },
    async abort() {
      done = true;
      buffered = [];
      file.abort();
    },
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new TokentapError('TT_INVALID_ARGUMENT', { message: `${name} must be a positive integer, got ${value}` });
  return value;
}
