import type { FastifyError, FastifyInstance } from 'fastify';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { toAnthropicError } from './anthropic-error-body.js';
import { fromFastifyError } from '../../errors/openai-error-handler.js';

/**
 * The one place where errors become Anthropic-shaped responses (`{"type":"error","error":{"type","message"}}`),
 * for the Messages routes of this scope, unknown routes under them included. A stream already under way
 * reports its failure as an `error` event instead (the renderer's renderStreamError).
 *
 * @example app.register(async (scope) => { setAnthropicErrorHandler(scope); ... }, { prefix: '/v1/messages' })
 */
export function setAnthropicErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const failure = fromFastifyError(error as FastifyError);
    if (failure.status >= 500) request.log.warn({ err: error, code: failure.code }, 'request failed');
    else request.log.info({ code: failure.code, message: failure.message }, 'request rejected');
    if (reply.sent || reply.raw.headersSent) return;
    const { status, body } = toAnthropicError(failure);
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const failure = new TokentapError('TT_NOT_FOUND', { message: `No route for ${request.method} ${request.url.split('?')[0]}` });
    const { status, body } = toAnthropicError(failure);
    void reply.code(status).send(body);
  });
}
