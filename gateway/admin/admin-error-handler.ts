import type { FastifyError, FastifyInstance } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { fromFastifyError } from '../errors/openai-error-handler.js';

/** The one error shape of the rollout API (docs/errors.md). */
export interface AdminErrorBody {
  error: { code: string; message: string };
}

/** @example toAdminErrorBody(new TokentapError('TT_SESSION_NOT_FOUND')) // { error: { code: 'TT_SESSION_NOT_FOUND', message: 'Session not found' } } */
export function toAdminErrorBody(failure: TokentapError): AdminErrorBody {
  return { error: { code: failure.code, message: failure.message } };
}

/**
 * The one place where rollout API errors become responses: `{"error":{"code","message"}}` with the code's status,
 * for every route under /tokentap/v1 and unknown routes there. Bad JSON and wrong content types come through
 * fastify and leave the same way.
 *
 * @example app.register(async (scope) => { setAdminErrorHandler(scope); ... }, { prefix: '/tokentap/v1' })
 */
export function setAdminErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const failure = fromFastifyError(error as FastifyError);
    if (failure.status >= 500) request.log.warn({ err: error, code: failure.code }, 'rollout API request failed');
    else request.log.info({ code: failure.code, message: failure.message }, 'rollout API request rejected');
    if (reply.sent || reply.raw.headersSent) return;
    void reply.code(failure.status).send(toAdminErrorBody(failure));
  });
  app.setNotFoundHandler((request, reply) => {
    const failure = new TokentapError('TT_NOT_FOUND', { message: `No route for ${request.method} ${request.url.split('?')[0]}` });
    void reply.code(404).send(toAdminErrorBody(failure));
  });
}
