import type { PolicyVersionRow } from '../store/index.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * The versions a `maxStaleness` filter keeps: the newest `maxStaleness + 1` distinct versions of the store's
 * policy-version history (oldest first). A version set again counts at its newest setting, so rolling back to an
 * earlier version makes it current again.
 *
 * @example
 * newestPolicyVersions([{ version: 'v1', setAt: 1 }, { version: 'v2', setAt: 2 }], 0); // Set { 'v2' }
 */
export function newestPolicyVersions(history: readonly PolicyVersionRow[], maxStaleness: number): Set<string> {
  if (!Number.isInteger(maxStaleness) || maxStaleness < 0) {
    throw new TokentapError('EXPORT_INVALID_OPTION', { message: `maxStaleness must be a whole number >= 0, not ${maxStaleness}` });
  }
  const newest = new Set<string>();
  for (let index = history.length - 1; index >= 0 && newest.size <= maxStaleness; index--) {
    newest.add((history[index] as PolicyVersionRow).version);
  }
  return newest;
}
