/**
 * Every failure the store reports on purpose. The gateway maps `code` to its own errors; the store
 * never imports the gateway (data flows one way, see STYLE.md section 1).
 */
export const STORE_ERROR_CODES = {
  /** `finishCall` (or another call lookup that must succeed) was given an id the store does not hold */
  STORE_CALL_NOT_FOUND: 'no call with this id',
  /** `finishCall` on a call that is no longer `in_progress`: a call is finished exactly once */
  STORE_CALL_ALREADY_FINISHED: 'the call was already finished',
  /** the file was written by a newer tokentap; an older one must not guess at its schema */
  STORE_SCHEMA_TOO_NEW: 'the database schema is newer than this tokentap',
  /** the file is older than this tokentap and a read-only open cannot migrate it */
  STORE_SCHEMA_OUTDATED: 'the database schema is older than this tokentap; open it read-write once',
  /** read-only open of a file that does not exist or was never migrated */
  STORE_NOT_INITIALIZED: 'the database does not exist or was never initialized',
  /** a write on a store opened with `readonly: true` */
  STORE_READONLY: 'the store was opened read-only',
  /** input that cannot be stored exactly (e.g. token ids outside Int32) */
  STORE_INVALID_INPUT: 'the input cannot be stored exactly',
  /** stored data that contradicts itself (a missing prompt parent, a bad body reference) */
  STORE_CORRUPT: 'the stored data is inconsistent',
  /** a rollout operation named a session the store does not hold */
  STORE_SESSION_NOT_FOUND: 'no session with this id',
  /** `createRollout` with the id of a session that already exists (made by the API or by a call) */
  STORE_SESSION_EXISTS: 'a session with this id already exists',
  /** `endSession` on a session that already ended: a session ends once */
  STORE_SESSION_ENDED: 'the session has already ended',
  /** `declareGroup` with another size than the group was declared with */
  STORE_GROUP_CONFLICT: 'the group was declared with another size',
  /** the database file could not be opened at all */
  STORE_OPEN_FAILED: 'the database could not be opened',
} as const;

export type StoreErrorCode = keyof typeof STORE_ERROR_CODES;

/**
 * An error raised by the store, with a stable `code` and the driver's error as `cause` when there is one.
 *
 * @example
 * try { store.finishCall(callId, result); }
 * catch (error) { if (isStoreError(error) && error.code === 'STORE_CALL_ALREADY_FINISHED') reply.code(409); }
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message ?? STORE_ERROR_CODES[code], options);
    this.code = code;
  }
}

/**
 * True when `value` is a {@link StoreError}, optionally with the given code.
 *
 * @example
 * if (isStoreError(error, 'STORE_CALL_NOT_FOUND')) return null;
 */
export function isStoreError(value: unknown, code?: StoreErrorCode): value is StoreError {
  return value instanceof StoreError && (code === undefined || value.code === code);
}
