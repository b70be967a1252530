import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCodeEntry } from '../../core/errors/error-codes.js';
import { isTokentapError, TokentapError } from '../../core/errors/tokentap-error.js';
import { storeUnavailable } from '../../store/store-failure-kinds.js';
import type { ViewerError } from '../viewer-api.js';

/**
 * Where the viewer's API errors become responses: `{"error":{"code","message"}}` (the rollout API's shape,
 * ui/viewer-api.ts ViewerError) with the code's HTTP status, for every route under the API prefix and unknown
 * routes (setViewerNotFoundHandler). Anything else is logged and answered 500 TT_INTERNAL without its details.
 *
 * @example app.register(async (scope) => { setViewerErrorHandler(scope); ... }, { prefix: VIEWER_API_PREFIX })
 */
export function setViewerErrorHandler(scope: FastifyInstance): void {
  scope.setErrorHandler((error: FastifyError | TokentapError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = viewerErrorAnswer(error);
    if (status >= 500) request.log.error({ err: error }, 'viewer API request failed');
    return reply.code(status).header('cache-control', 'no-store').send(body);
  });
}

/**
 * Unknown routes of an app that is only the viewer (`tokentap ui`) in the same shape.
 *
 * @example setViewerNotFoundHandler(app)
 */
export function setViewerNotFoundHandler(scope: FastifyInstance): void {
  scope.setNotFoundHandler((request, reply) => {
    const { status, body } = viewerErrorAnswer(new TokentapError('TT_NOT_FOUND', { message: `No viewer route ${request.method} ${request.url}` }));
    return reply.code(status).send(body);
  });
}

function viewerErrorAnswer(error: unknown): { status: number; body: ViewerError } {
  // a PostgreSQL restart while someone looks: retry, not an internal error
  error = storeUnavailable(error) ?? error;
  if (isTokentapError(error)) {
    const entry: ErrorCodeEntry = ERROR_CODES[error.code];
    if (entry.status !== undefined) return { status: entry.status, body: { error: { code: error.code, message: error.message } } };
  }
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const code = statusCode === 404 ? 'TT_NOT_FOUND' : 'TT_INVALID_REQUEST';
    return { status: statusCode, body: { error: { code, message: (error as Error).message } } };
  }
  return { status: 500, body: { error: { code: 'TT_INTERNAL', message: ERROR_CODES.TT_INTERNAL.message } } };
}
