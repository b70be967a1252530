import { createErrorHandler, type ErrorHandler } from '../errors/create-error-handler.js';
import { toAdminErrorBody } from './admin-error-body.js';

/**
 * Where rollout API errors become responses: `{"error":{"code","message"}}` with the code's status, for every route
 * under /tokentap/v1 and unknown routes there. Bad JSON and wrong content types come through fastify and leave the
 * same way.
 *
 * @example app.register(async (scope) => { adminErrorHandler.setOn(scope); ... }, { prefix: '/tokentap/v1' })
 */
export const adminErrorHandler: ErrorHandler = createErrorHandler({
  answer: (failure) => ({ status: failure.status, body: toAdminErrorBody(failure) }),
  logSubject: 'rollout API request',
});
