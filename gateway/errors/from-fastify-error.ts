import type { FastifyError } from 'fastify';
import { isHttpErrorCode } from '../../core/errors/error-codes.js';
import { TokentapError, isTokentapError } from '../../core/errors/tokentap-error.js';
import { storeUnavailable } from '../../store/store-failure-kinds.js';

/**
 * Turns fastify's own failures (body parsing, size, media type) into TokentapErrors, so every error leaves
 * through one door per protocol. A TokentapError goes out as it is only when its code has an HTTP status: a store's
 * or an exporter's (STORE_*, EXPORT_*, TT_INVALID_ARGUMENT) that reaches a handler is an internal failure, a 500
 * TT_INTERNAL that keeps it as its cause, unless the store is only away for now (503 TT_STORE_UNAVAILABLE).
 *
 * @example const error = fromFastifyError(fastifyError)
 */
export function fromFastifyError(error: FastifyError | Error): TokentapError {
  if (isTokentapError(error) && isHttpErrorCode(error.code)) return error;
  // PostgreSQL restarting under the rollout API is something to retry, not an internal error (docs/reliability.md)
  const away = storeUnavailable(error);
  if (away !== null) return away;
  if (isTokentapError(error)) return new TokentapError('TT_INTERNAL', { cause: error });
  const status = (error as FastifyError).statusCode;
  if (status === 413) return new TokentapError('TT_BODY_TOO_LARGE', { cause: error });
  if (status === 415) return new TokentapError('TT_UNSUPPORTED_MEDIA_TYPE', { message: error.message, cause: error });
  if (status !== undefined && status >= 400 && status < 500) {
    return new TokentapError('TT_INVALID_REQUEST', { message: error.message, cause: error });
  }
  return new TokentapError('TT_INTERNAL', { cause: error });
}
