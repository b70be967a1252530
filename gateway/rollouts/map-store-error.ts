import type { ErrorCode } from '../../core/errors/error-codes.js';
import { TokentapError, isTokentapError } from '../../core/errors/tokentap-error.js';

/** Store refusals the rollout API passes on as client errors; any other store failure stays a 500. */
const CLIENT_ERRORS: Partial<Record<ErrorCode, ErrorCode>> = {
  STORE_SESSION_NOT_FOUND: 'TT_SESSION_NOT_FOUND',
  STORE_SESSION_EXISTS: 'TT_SESSION_EXISTS',
  STORE_SESSION_ENDED: 'TT_SESSION_ENDED',
  STORE_CALL_NOT_FOUND: 'TT_CALL_NOT_FOUND',
  STORE_GROUP_CONFLICT: 'TT_GROUP_CONFLICT',
  // a reward outside the reward rule (the schema refuses it first; this keeps a gap there a 400, not a 500)
  STORE_INVALID_INPUT: 'TT_INVALID_REQUEST',
};

/**
 * Runs a store write of the rollout API and words its refusals as TokentapErrors (400, 404, 409), keeping the cause.
 *
 * @example const row = withStoreErrors(() => store.addReward(input));
 */
export function withStoreErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const code = isTokentapError(error) ? CLIENT_ERRORS[error.code] : undefined;
    if (code === undefined) throw error;
    throw new TokentapError(code, { message: (error as TokentapError).message, cause: error });
  }
}
