import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../../gateway-context.js';
import { readBackendBody } from '../../backends/read-backend-body.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { normalizeBackendErrorBody } from '../../errors/openai-error-body.js';
import { fleetModelEntries } from './fleet-model-entries.js';

/**
 * `GET /v1/models` lists every model of the fleet (the union of its replicas' models), each entry as a replica
 * serving it reports it, so harnesses that probe models see what is served. While no replica's models are known
 * (none configured and the start-up probe could not list them), a replica's own answer is relayed, errors included.
 *
 * @example registerOpenAiModels(scope, context)
 */
export function registerOpenAiModels(app: FastifyInstance, context: GatewayContext): void {
  app.get('/models', async (request, reply) => {
    const controller = new AbortController();
    reply.raw.on('close', () => controller.abort());
    if (context.fleet.models().length > 0) {
      return reply.code(200).send({ object: 'list', data: await fleetModelEntries(context.fleet, controller.signal, request.log) });
    }
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
