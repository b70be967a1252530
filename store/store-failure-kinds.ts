import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * What a failed store write means for the recorder, for both engines, read from the error's `code` alone (it crosses
 * the recording thread's boundary as a string): SQLite result codes (https://www.sqlite.org/rescode.html), PostgreSQL
 * SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html), Node's socket codes, and
 * `PG_CONNECTION_LOST` (pg-database.ts: a connection that failed without a code).
 */

/** PostgreSQL or its connection is away: the server restarting, the network down, a timeout. */
const PG_CONNECTION = /^(PG_CONNECTION_LOST|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08...|57P0[1-3])$/;

/**
 * Failures that pass by themselves: a full disk given room, a lock freed, PostgreSQL back, a deadlock or serialization
 * failure (40001, 40P01) run again, the server's resources (53xxx: disk full, too many connections).
 *
 * @example if (isPassingStoreFailure(error)) retries.hold(callId, result, error, 'retry');
 */
export function isPassingStoreFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code === null) return false;
  return (
    /^SQLITE_(FULL|IOERR|BUSY|LOCKED|NOMEM|READONLY|CANTOPEN|PROTOCOL)/.test(code) || PG_CONNECTION.test(code) || /^(53...|40001|40P01)$/.test(code)
  );
}

/**
 * Failures after which the enclosing transaction may be gone (SQLite rolls back on a full disk or an I/O error;
 * a lost PostgreSQL connection takes its transaction with it): writing on would commit each later write alone.
 *
 * @example if (mayHaveEndedTransaction(error)) aborted = error;
 */
export function mayHaveEndedTransaction(error: unknown): boolean {
  const code = codeOf(error);
  if (code === null) return false;
  return /^SQLITE_(FULL|IOERR|BUSY|NOMEM)/.test(code) || PG_CONNECTION.test(code) || /^(25P02|40001|40P01|53...)$/.test(code);
}

/**
 * A transaction that failed this way may have committed all the same: the connection went (PostgreSQL away, the
 * network cut) after its COMMIT may have reached the server, and no answer says which. SQLite's failures never leave
 * that doubt. A reader must look at the rows to know.
 *
 * @example if (mayHaveCommitted(error)) uncertain.set(callId, error); // its end is still tried
 */
export function mayHaveCommitted(error: unknown): boolean {
  return PG_CONNECTION.test(codeOf(error) ?? '');
}

/**
 * A write PostgreSQL rolled back to break a deadlock (40P01) or a serialization conflict (40001) between writers:
 * nothing of it stayed, and writing it again is how it gets written (the errcodes appendix's class 40). Gateways that
 * group-commit calls of the same sessions into one database meet it: each batch takes its sessions' rows in its own order.
 *
 * @example if (isWriteConflict(error)) retry(write);
 */
export function isWriteConflict(error: unknown): boolean {
  return /^(40001|40P01)$/.test(codeOf(error) ?? '');
}

/**
 * A passing store failure (isPassingStoreFailure, on the error or a cause of it) as the 503 TT_STORE_UNAVAILABLE an
 * HTTP client can retry; null for any other error. For the routes that read or write the store outside a recorded
 * call (the rollout API, the viewer): a PostgreSQL restart is not an internal error.
 *
 * @example throw storeUnavailable(error) ?? error
 */
export function storeUnavailable(error: unknown): TokentapError | null {
  for (let cause = error, depth = 0; cause !== null && cause !== undefined && depth < 8; depth++) {
    if (isPassingStoreFailure(cause)) {
      return new TokentapError('TT_STORE_UNAVAILABLE', {
        message: `The store cannot be reached now (${String(codeOf(cause))}); try again`,
        cause: error,
      });
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : null;
}
