import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export interface TokentapErrorOptions {
  message?: string;
  /** overrides the table's status (backend errors passed through keep the backend's status) */
  status?: number;
  /** the request field at fault, for OpenAI's `param` */
  param?: string | null;
  /** a body to send as is instead of the generated one (a backend's own error, already in the right shape) */
  cause?: unknown;
}

/**
 * The one error class of tokentap. Front doors turn it into their protocol's error shape in one place.
 *
 * @example
 * throw new TokentapError('TT_BACKEND_TIMEOUT', { cause: error });
 */
export class TokentapError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;

  constructor(code: ErrorCode, options: TokentapErrorOptions = {}) {
    const entry = ERROR_CODES[code];
    super(options.message ?? entry.message, { cause: options.cause });
    this.name = 'TokentapError';
    this.code = code;
    this.status = options.status ?? entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
  }
}

/** @example if (isTokentapError(error)) reply.status(error.status) */
export function isTokentapError(value: unknown): value is TokentapError {
  return value instanceof TokentapError;
}
