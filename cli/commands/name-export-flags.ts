import { z } from 'zod';
import { isTokentapError, TokentapError } from '../../core/errors/tokentap-error.js';
import { formatConfigIssues } from '../format-config-issues.js';

/**
 * parseExportQuery's refusal (EXPORT_INVALID_OPTION) with each option named by the flag the user gave
 * (`--advantage "foo"`), not the query key it maps to (`estimator`); any other error is returned as it is.
 *
 * @example throw withFlagNames(error, { advantage: 'estimator' }, { advantage: 'foo' }); // '... --advantage "foo": Invalid option ...'
 */
export function withFlagNames(
  error: unknown,
  queryKeys: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string | boolean | undefined>>,
): unknown {
  if (!isTokentapError(error, 'EXPORT_INVALID_OPTION') || !(error.cause instanceof z.ZodError)) return error;
  const flagOf = new Map(Object.entries(queryKeys).map(([flag, key]) => [key, flag]));
  flagOf.set('normalizeStd', 'no-std-norm');
  const sourceOf = (key: string) => {
    const flag = flagOf.get(key) ?? key;
    const value = values[flag];
    return { name: `--${flag}`, label: typeof value === 'string' ? `--${flag} ${JSON.stringify(value)}` : `--${flag}` };
  };
  const message = `invalid option: ${formatConfigIssues(error.cause, { keys: [...flagOf.keys()], sourceOf })}`;
  return new TokentapError('EXPORT_INVALID_OPTION', { message, cause: error.cause });
}
