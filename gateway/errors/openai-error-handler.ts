import { createErrorHandler, type ErrorHandler } from './create-error-handler.js';
import { toOpenAiError } from './openai-error-body.js';

/**
 * Where errors become OpenAI-shaped responses, for every OpenAI front door, the models route and the root scope
 * (`/healthz`, `/metrics`, unknown routes).
 *
 * @example app.register(async (scope) => { openAiErrorHandler.setOn(scope); registerOpenAiChat(scope, context) }, { prefix: '/v1' })
 */
export const openAiErrorHandler: ErrorHandler = createErrorHandler({ answer: toOpenAiError });
