import { createErrorAlias } from '../core/errors/create-error-alias.js';
import type { StoreErrorCode } from '../core/errors/error-codes.js';
import { TokentapError, isTokentapError } from '../core/errors/tokentap-error.js';

export type { StoreErrorCode } from '../core/errors/error-codes.js';

function hasStoreCode(value: unknown, code?: StoreErrorCode): value is TokentapError<StoreErrorCode> {
  return isTokentapError(value) && value.code.startsWith('STORE_') && (code === undefined || value.code === code);
}

/**
 * True when `value` is a TokentapError with a `STORE_` code (the given one, if any).
 *
 * @deprecated the store throws TokentapError: use `isTokentapError(error, 'STORE_CALL_NOT_FOUND')`.
 * @example
 * if (isStoreError(error, 'STORE_CALL_NOT_FOUND')) return null;
 */
export function isStoreError(value: unknown, code?: StoreErrorCode): value is TokentapError<StoreErrorCode> {
  return hasStoreCode(value, code);
}

/**
 * The store's old error class, now a name over TokentapError: `new StoreError(code, message?, { cause })` builds a
 * TokentapError with that `STORE_` code, and `instanceof StoreError` holds for any TokentapError with a `STORE_` code.
 *
 * @deprecated use TokentapError and `isTokentapError(error, code)`; the `code` strings are the same.
 * @example
 * try { store.finishCall(callId, result); }
 * catch (error) { if (error instanceof StoreError && error.code === 'STORE_CALL_ALREADY_FINISHED') reply.code(409); }
 */
export const StoreError = createErrorAlias('StoreError', hasStoreCode, (code: StoreErrorCode, message?: string, options?: { cause?: unknown }) => {
  return new TokentapError(code, { ...(message === undefined ? {} : { message }), cause: options?.cause });
});

/** @deprecated a TokentapError with a `STORE_` code */
export type StoreError = TokentapError<StoreErrorCode>;
