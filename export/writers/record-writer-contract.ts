import type { ColumnSpec, ExportRow } from '../../trainer-adapters/trainer-adapter.js';

// The writers' contract, apart from createRecordWriter so that the JSONL and Parquet writers it picks between
// import the types without importing their own chooser.

/** Where a dataset file went and what it holds, from RecordWriter.close(). */
export interface RecordWriterResult {
  /** the dataset's absolute path */
  path: string;
  /** the file's size */
  bytes: number;
  rows: number;
}

/**
 * Writes the rows of one dataset file. Rows go to a temp file beside `path` that is renamed onto it by `close()`;
 * `abort()` removes it, so an export that fails or is interrupted never leaves a partial dataset at `path`.
 * A bad value throws an EXPORT_INVALID_VALUE error from `write()` and nothing of that row is written.
 */
export interface RecordWriter {
  /** Returns nothing today (both formats write synchronously); await it anyway, the interface allows a Promise. */
  write(row: ExportRow): void | Promise<void>;
  close(): Promise<RecordWriterResult>;
  /** Removes the temp file; safe after close() failed and safe to call twice. */
  abort(): Promise<void>;
}

export interface RecordWriterOptions {
  /** `.jsonl` or `.parquet`: the extension chooses the format */
  path: string;
  /** the row schema, in column order: JSONL keys and Parquet columns */
  columns: readonly ColumnSpec[];
  /** Parquet file key-value metadata (schema_version, tokentap_version, format, ...); JSONL has nowhere to put it */
  metadata: Record<string, string>;
  /** JSONL only: the line is the JSON of `toJson(row)` (Tinker's nested Datum); Parquet keeps the flat columns */
  toJson?: (row: ExportRow) => unknown;
  /** replace a file already at `path` (otherwise refused at create and again at close) */
  force?: boolean;
  /** Parquet only: rows per row group (default DEFAULT_ROW_GROUP_ROWS) */
  rowGroupRows?: number;
  /** Parquet only: a row group is cut early once its list columns hold this many values (default DEFAULT_ROW_GROUP_VALUES), bounding memory */
  rowGroupValues?: number;
}
