/** Why an export path was refused. */
export type ExportPathErrorCode = 'EXPORT_BAD_EXTENSION' | 'EXPORT_PATH_EXISTS' | 'EXPORT_NO_PARENT_DIR';

/**
 * A dataset path the writers refuse: an extension other than `.jsonl` / `.parquet`, a file already there without
 * `force`, or a parent folder that does not exist. A mistake in how the export was asked for, so the CLI maps
 * it to exit code 2 (`error instanceof ExportPathError`); nothing has been written when it is thrown.
 *
 * @example
 * try { createRecordWriter({ path, columns, metadata }); }
 * catch (error) { if (error instanceof ExportPathError) return 2; throw error; }
 */
export class ExportPathError extends Error {
  override readonly name = 'ExportPathError';
  readonly code: ExportPathErrorCode;
  readonly path: string;

  constructor(code: ExportPathErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.path = path;
  }
}
