import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { VllmError, vllmErrorBody } from '../vllm-error.js';

/**
 * SGLang's `ValueError` arm of `OpenAIServingBase.handle_request` (serving_base.py): a request the handler refuses
 * while converting it (e.g. `return_token_ids` on a streamed chat) is a 400 whose `type` is `BadRequest`, where the
 * errors raised later during generation keep `create_error_response`'s default `BadRequestError`.
 *
 * @example
 * throw sglangBadRequest('return_token_ids is not supported with streaming on /v1/chat/completions. ...');
 */
export function sglangBadRequest(message: string): VllmError {
  return new VllmError(400, message, { type: 'BadRequest' });
}

/**
 * The body SGLang sends for an error on this route:
 * - native `/generate` (http_server.py `_create_error_response`): `{"error": {"message": …}}`;
 * - the OpenAI-compatible routes (protocol.py `ErrorResponse.model_dump()`): the flat
 *   `{"object": "error", "message", "type", "param", "code"}`; FastAPI's request validation (a body that does not
 *   fit the pydantic model, bad JSON) gives the same shape with `type: "Bad Request"` on every route.
 *
 * @example
 * sglangErrorBody('/generate', new VllmError(400, 'bad')); // { error: { message: 'bad' } }
 */
export function sglangErrorBody(url: string, error: VllmError): Record<string, unknown> {
  if (isNativeGenerate(url) && error.type !== 'Bad Request') return { error: { message: error.message } };
  return vllmErrorBody(error, 'flat');
}

function isNativeGenerate(url: string): boolean {
  return url === '/generate' || url.startsWith('/generate?');
}

/** Errors become SGLang-shaped responses here and nowhere else; unknown routes get FastAPI's 404 body. @example setSglangErrorHandlers(app); */
export function setSglangErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | VllmError, request: FastifyRequest, reply) => {
    let sglangError: VllmError;
    if (error instanceof VllmError) sglangError = error;
    // fastify's own 4xx (bad JSON, wrong content type, body too large): FastAPI's RequestValidationError, made a 400
    else if (typeof error.statusCode === 'number' && error.statusCode < 500) sglangError = new VllmError(400, error.message, { type: 'Bad Request' });
    else {
      request.log.error({ err: error }, 'simulator failure');
      sglangError = new VllmError(500, `Internal server error: ${error.message}`);
    }
    return reply
      .code(sglangError.status)
      .type('application/json')
      .send(JSON.stringify(sglangErrorBody(request.url, sglangError)));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('application/json').send('{"detail":"Not Found"}'));
}
