import type { FastifyError, FastifyInstance } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { toOpenAiErrorBody } from './openai-error-body.js';

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

/**
 * The one place where errors become OpenAI-shaped responses, for every OpenAI front door in this scope.
 * A stream already under way has its own error event (relay-chat-stream.ts); here the reply is still unsent.
 *
 * @example scope.register(...); setOpenAiErrorHandler(scope)
 */
export function setOpenAiErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const failure = fromFastifyError(error as FastifyError);
    if (failure.status >= 500) request.log.warn({ err: error, code: failure.code }, 'request failed');
    else request.log.info({ code: failure.code, message: failure.message }, 'request rejected');
    if (reply.sent || reply.raw.headersSent) return;
    const cause = failure.cause;
    // a backend error already normalized to OpenAI's shape goes out as the backend worded it
    const body = failure.code === 'TT_BACKEND_ERROR' && typeof cause === 'object' && cause !== null && 'error' in cause ? cause : toOpenAiErrorBody(failure);
    void reply.code(failure.status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(toOpenAiErrorBody(new TokentapError('TT_NOT_FOUND', { message: `No route for ${request.method} ${request.url.split('?')[0]}` })));
  });
}
