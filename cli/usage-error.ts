import { createErrorAlias } from '../core/errors/create-error-alias.js';
import { TokentapError, isTokentapError } from '../core/errors/tokentap-error.js';

function isUsageMistake(value: unknown): value is TokentapError<'TT_USAGE'> {
  return isTokentapError(value, 'TT_USAGE');
}

/**
 * A mistake in how the command was called or configured: `new UsageError(message)` builds a TokentapError with
 * code TT_USAGE (a user's mistake: printed without a stack, exit code 2), and `instanceof UsageError` holds for those.
 *
 * @example throw new UsageError('give --out PATH (.jsonl or .parquet)');
 */
export const UsageError = createErrorAlias('UsageError', isUsageMistake, (message: string, options?: { cause?: unknown }) => {
  return new TokentapError('TT_USAGE', { message, cause: options?.cause });
});
