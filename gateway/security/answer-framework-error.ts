import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { ErrorHandler } from '../errors/create-error-handler.js';

/** The longest path parameter the router takes; session and group ids are at most 128 characters. */
export const MAX_PARAM_LENGTH = 256;

/** A part of the URL space and the error handler of the scope that serves it. */
export interface PathErrorScope {
  matches(path: string): boolean;
  errors: ErrorHandler;
}

/**
 * Answers what fastify's router refuses before any route or error handler runs (a malformed percent-encoding, a
 * path parameter over MAX_PARAM_LENGTH) with 400 TT_INVALID_REQUEST in the protocol shape the path belongs to: the
 * first of `scopes` whose path matches, else `otherwise` (create-gateway.ts: the rollout API's under /tokentap/,
 * Anthropic's under /v1/messages, OpenAI's elsewhere). Without this, fastify answers in its own shape, which no
 * client reads.
 *
 * @example fastify({ routerOptions: { maxParamLength: MAX_PARAM_LENGTH }, frameworkErrors: createFrameworkErrorAnswer(scopes, openAiErrorHandler) })
 */
export function createFrameworkErrorAnswer(
  scopes: readonly PathErrorScope[],
  otherwise: ErrorHandler,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    const message =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters (session and group ids are at most 128)`
        : 'The URL is not valid (a malformed percent-encoding)';
    const failure = new TokentapError('TT_INVALID_REQUEST', { message });
    request.log.info({ code: failure.code, fastifyCode: error.code }, 'request rejected by the router');
    const path = request.raw.url ?? '';
    (scopes.find((scope) => scope.matches(path))?.errors ?? otherwise).send(reply, failure);
  };
}
