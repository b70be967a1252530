import { extname, resolve } from 'node:path';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { createJsonlRecordWriter } from './jsonl-record-writer.js';
import { createParquetRecordWriter } from './parquet-record-writer.js';
import type { RecordWriter, RecordWriterOptions } from './record-writer-contract.js';

export type { RecordWriter, RecordWriterOptions, RecordWriterResult } from './record-writer-contract.js';

/** The extensions createRecordWriter accepts. */
export const RECORD_FILE_EXTENSIONS = ['.jsonl', '.parquet'] as const;

/**
 * A RecordWriter for `path`, JSONL or Parquet by its extension. Throws a TokentapError (a user's mistake: CLI exit
 * code 2) for another extension (EXPORT_BAD_EXTENSION), a missing parent folder (EXPORT_NO_PARENT_DIR), an
 * existing file without `force` (EXPORT_PATH_EXISTS), or a folder at the path or one that takes no new file
 * (EXPORT_PATH_NOT_WRITABLE), with the path in `details.path`.
 *
 * @example
 * const writer = createRecordWriter({ path: 'train.parquet', columns: adapter.columns, metadata: { format: 'verl' } });
 * try {
 *   for (const row of rows) await writer.write(row);
 *   const { bytes, rows: written } = await writer.close();
 * } catch (error) {
 *   await writer.abort();
 *   throw error;
 * }
 */
export function createRecordWriter(options: RecordWriterOptions): RecordWriter {
  const extension = extname(options.path).toLowerCase();
  if (extension === '.jsonl') return createJsonlRecordWriter(options);
  if (extension === '.parquet') return createParquetRecordWriter(options);
  throw new TokentapError('EXPORT_BAD_EXTENSION', {
    message: `${options.path}: the file name must end in ${RECORD_FILE_EXTENSIONS.join(' or ')} (it chooses the format)`,
    details: { path: resolve(options.path) },
  });
}
