import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../../gateway-context.js';
import { readBackendBody } from '../../backends/read-backend-body.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { normalizeBackendErrorBody } from '../../errors/openai-error-body.js';

/**
 * `GET /v1/models` answers with the backend's own list, so harnesses that probe models see what is served.
 * @example registerOpenAiModels(scope, context)
 */
export function registerOpenAiModels(app: FastifyInstance, context: GatewayContext): void {
  app.get('/models', async (request, reply) => {
    const controller = new AbortController();
    reply.raw.on('close', () => controller.abort());
    const response = await context.backend.get('/v1/models', controller.signal);
    const { text, json } = await readBackendBody(response);
    if (response.statusCode >= 400) {
      const normalized = normalizeBackendErrorBody(json ?? text, response.statusCode);
      throw new TokentapError('TT_BACKEND_ERROR', { status: response.statusCode, message: normalized.error.message, body: normalized });
    }
    if (json === undefined) throw new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: 'Inference backend sent a model list that is not JSON' });
    return reply.code(200).send(json);
  });
}
