import { ERROR_CODES, type ErrorCode, type ErrorCodeEntry } from './error-codes.js';

/**
 * The brand every TokentapError carries. `Symbol.for` gives the same symbol in every copy of tokentap loaded into
 * one process (two versions in node_modules, a bundled copy), so `isTokentapError` and `instanceof` recognise an
 * error whichever copy built it, where a class identity check would not (undici brands its errors the same way).
 */
const TOKENTAP_ERROR = Symbol.for('tokentap.error');

export interface TokentapErrorOptions {
  message?: string;
  /** overrides the table's status (backend errors passed through keep the backend's status) */
  status?: number;
  /** the request field at fault, for OpenAI's `param` */
  param?: string | null;
  /** the underlying error, when there is one (a driver's, undici's, a parser's) */
  cause?: unknown;
  /** a body to send as is instead of the generated one (a backend's own error, already in the right shape) */
  body?: unknown;
  /** facts about the failure for programs to read (the refused `path` of an EXPORT_PATH_*, the `where` of an EXPORT_INVALID_VALUE) */
  details?: Readonly<Record<string, unknown>>;
}

/**
 * The one error class of tokentap, for every module; `code` is a key of the one table (error-codes.ts). Front doors
 * turn it into their protocol's error shape in one place; the CLI prints the user's mistakes as one line (exit 2).
 *
 * @example
 * throw new TokentapError('TT_BACKEND_TIMEOUT', { cause: error });
 * if (isTokentapError(error, 'STORE_CALL_NOT_FOUND')) return null;
 */
export class TokentapError<Code extends ErrorCode = ErrorCode> extends Error {
  readonly code: Code;
  /** the table's HTTP status (or the given one); 500 for codes that have none */
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** a body to send as is (set only for backend errors passed on); not enumerable, as `cause` is not, so logs skip it */
  declare readonly body: unknown;

  constructor(code: Code, options: TokentapErrorOptions = {}) {
    const entry: ErrorCodeEntry = ERROR_CODES[code];
    super(options.message ?? entry.message, { cause: options.cause });
    this.name = 'TokentapError';
    this.code = code;
    this.status = options.status ?? entry.status ?? 500;
    this.type = entry.type ?? 'api_error';
    this.param = options.param ?? null;
    this.details = options.details;
    Object.defineProperty(this, 'body', { value: options.body, enumerable: false, writable: true, configurable: true });
  }

  /** `error instanceof TokentapError` is the brand check, so it holds for errors of another copy of tokentap too. */
  static override [Symbol.hasInstance](value: unknown): value is TokentapError {
    return isTokentapError(value);
  }

  get [TOKENTAP_ERROR](): true {
    return true;
  }
}

/**
 * True when `value` is a TokentapError, from this copy of tokentap or another (by its `Symbol.for` brand), and,
 * when `code` is given, has that code.
 *
 * @example
 * if (isTokentapError(error)) reply.status(error.status);
 * if (isTokentapError(error, 'STORE_SCHEMA_OUTDATED')) suggestMigrate();
 */
export function isTokentapError<Code extends ErrorCode = ErrorCode>(value: unknown, code?: Code): value is TokentapError<Code> {
  if (typeof value !== 'object' || value === null || (value as { [TOKENTAP_ERROR]?: unknown })[TOKENTAP_ERROR] !== true) return false;
  return code === undefined || (value as { code?: unknown }).code === code;
}
