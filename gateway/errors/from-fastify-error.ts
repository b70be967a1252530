import type { FastifyError } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';

/**
 * Turns fastify's own failures (body parsing, size, media type) into TokentapErrors, so every error leaves
 * through one door per protocol.
 *
 * @example const error = fromFastifyError(fastifyError)
 */
export function fromFastifyError(error: FastifyError | Error): TokentapError {
  if (error instanceof TokentapError) return error;
  const status = (error as FastifyError).statusCode;
  if (status === 413) return new TokentapError('TT_BODY_TOO_LARGE', { cause: error });
  if (status === 415) return new TokentapError('TT_UNSUPPORTED_MEDIA_TYPE', { message: error.message, cause: error });
  if (status !== undefined && status >= 400 && status < 500) {
    return new TokentapError('TT_INVALID_REQUEST', { message: error.message, cause: error });
  }
  return new TokentapError('TT_INTERNAL', { cause: error });
}
