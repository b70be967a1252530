import { createErrorAlias } from '../../core/errors/create-error-alias.js';
import { TokentapError, isTokentapError } from '../../core/errors/tokentap-error.js';

/** Why an export path was refused. */
export type ExportPathErrorCode = 'EXPORT_BAD_EXTENSION' | 'EXPORT_PATH_EXISTS' | 'EXPORT_NO_PARENT_DIR' | 'EXPORT_PATH_NOT_WRITABLE';

const PATH_CODES: ReadonlySet<string> = new Set<ExportPathErrorCode>([
  'EXPORT_BAD_EXTENSION',
  'EXPORT_PATH_EXISTS',
  'EXPORT_NO_PARENT_DIR',
  'EXPORT_PATH_NOT_WRITABLE',
]);

function isPathRefusal(value: unknown): value is TokentapError<ExportPathErrorCode> {
  return isTokentapError(value) && PATH_CODES.has(value.code);
}

/**
 * The writers' old error class for a refused dataset path, now a name over TokentapError: the writers throw a
 * TokentapError with code `EXPORT_BAD_EXTENSION`, `EXPORT_PATH_EXISTS`, `EXPORT_NO_PARENT_DIR` or `EXPORT_PATH_NOT_WRITABLE` (the path in
 * `details.path`), and `instanceof ExportPathError` holds for exactly those. Each is a user's mistake (CLI exit 2);
 * nothing has been written when it is thrown.
 *
 * @deprecated use `isTokentapError(error, 'EXPORT_PATH_EXISTS')` (or the code's entry in ERROR_CODES: `userMistake`).
 * @example
 * try { createRecordWriter({ path, columns, metadata }); }
 * catch (error) { if (error instanceof ExportPathError) return 2; throw error; }
 */
export const ExportPathError = createErrorAlias(
  'ExportPathError',
  isPathRefusal,
  (code: ExportPathErrorCode, path: string, message: string, options?: { cause?: unknown }) =>
    new TokentapError(code, { message, cause: options?.cause, details: { path } }),
);

/** @deprecated a TokentapError with an EXPORT_ path code */
export type ExportPathError = TokentapError<ExportPathErrorCode>;
