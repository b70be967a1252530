import { createErrorHandler, type ErrorHandler } from '../../errors/create-error-handler.js';
import { toAnthropicError } from './anthropic-error-body.js';

/**
 * Where errors become Anthropic-shaped responses (`{"type":"error","error":{"type","message"}}`), for the Messages
 * routes, unknown routes under them included. A stream already under way reports its failure as an `error` event
 * instead (the renderer's renderStreamError).
 *
 * @example app.register(async (scope) => { anthropicErrorHandler.setOn(scope); ... }, { prefix: '/v1/messages' })
 */
export const anthropicErrorHandler: ErrorHandler = createErrorHandler({ answer: (failure) => toAnthropicError(failure) });
