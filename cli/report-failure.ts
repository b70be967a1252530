import { isUserMistakeCode } from '../core/errors/error-codes.js';
import { isTokentapError } from '../core/errors/tokentap-error.js';

/** The exit code of a user's mistake (a bad flag, path, option or config); 1 is everything else. */
export const USAGE_EXIT_CODE = 2;

/**
 * The one rule for how every command ends on an error: a TokentapError whose code is a user's mistake (the table's
 * `userMistake`: TT_USAGE, EXPORT_PATH_EXISTS, EXPORT_INVALID_OPTION, ...) and node's own parseArgs refusals print
 * one line and exit 2; anything else is a fault (a bug, a broken database, a full disk) and prints its stack, exit 1.
 * Nothing is guessed from the error's class: a TypeError is a bug, never a usage mistake.
 *
 * @example main(argv).catch((error) => { process.exitCode = reportFailure(error, process.stderr); });
 */
export function reportFailure(error: unknown, stderr: { write(text: string): unknown }): number {
  if (isUserMistake(error)) {
    stderr.write(`tokentap: ${(error as Error).message}\n`);
    return USAGE_EXIT_CODE;
  }
  stderr.write(`tokentap: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}

function isUserMistake(error: unknown): boolean {
  if (isTokentapError(error)) return isUserMistakeCode(error.code);
  // node:util parseArgs refuses unknown flags and missing values with ERR_PARSE_ARGS_* codes
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
