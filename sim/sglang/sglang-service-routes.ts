import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SimContext } from '../sim-context.js';
import { VllmError } from '../vllm-error.js';

/** The SGLang version `/get_server_info` reports: nominal, a release with `return_token_ids` (PR #30917). */
export const SGLANG_SIM_VERSION = '0.5.10';

const updateWeightVersionSchema = z.looseObject({ new_version: z.string(), abort_all_requests: z.boolean().nullish() });

/**
 * SGLang's service routes (http_server.py): `GET /health` and `GET /health_generate` (200, empty body, once the
 * server is up), `GET /get_model_info`, `GET /get_server_info` (the server args, scheduler info, `internal_states`,
 * `version`), `GET /get_weight_version`, `POST /update_weight_version` (`{new_version}` → `{success, message,
 * new_version}`), `GET /v1/models` and `GET /v1/models/{model}` (protocol.py `ModelCard`, `owned_by: "sglang"`).
 *
 * @example
 * registerSglangServiceRoutes(app, context);
 */
export function registerSglangServiceRoutes(app: FastifyInstance, context: SimContext): void {
  for (const url of ['/health', '/health_generate']) app.get(url, async (_request, reply) => reply.code(200).send());
  app.get('/get_model_info', async () => ({
    model_path: context.modelName,
    tokenizer_path: context.modelName,
    is_generation: true,
    preferred_sampling_params: null,
    weight_version: context.weightVersion,
  }));
  app.get('/get_weight_version', async () => ({ weight_version: context.weightVersion }));
  app.get('/get_server_info', async () => serverInfo(context));
  app.post('/update_weight_version', async (request) => {
    const parsed = updateWeightVersionSchema.safeParse(request.body);
    if (!parsed.success) throw new VllmError(400, `new_version: ${parsed.error.issues[0]?.message ?? 'required'}`, { type: 'Bad Request' });
    context.weightVersion = parsed.data.new_version;
    return { success: true, message: `Weight version updated to ${parsed.data.new_version}`, new_version: parsed.data.new_version };
  });
  app.get('/v1/models', async () => ({ object: 'list', data: [modelCard(context, context.modelName)] }));
  app.get('/v1/models/*', async (request, reply) => {
    const model = (request.params as { '*': string })['*'];
    if (model === context.modelName) return modelCard(context, model);
    return reply
      .code(404)
      .send({ error: { message: `The model '${model}' does not exist`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
  });
}

function modelCard(context: SimContext, id: string): Record<string, unknown> {
  return {
    id,
    object: 'model',
    created: Math.floor(Date.now() / 1000),
    owned_by: 'sglang',
    root: id,
    parent: null,
    max_model_len: context.maxModelLen,
  };
}

// a subset of ServerArgs (dataclasses.asdict keeps them all), what a gateway reads first
function serverInfo(context: SimContext): Record<string, unknown> {
  return {
    model_path: context.modelName,
    tokenizer_path: context.modelName,
    served_model_name: context.modelName,
    skip_tokenizer_init: false,
    context_length: context.maxModelLen,
    reasoning_parser: 'qwen3',
    tool_call_parser: 'qwen25',
    stream_interval: context.streamInterval,
    incremental_streaming_output: context.incrementalStreamingOutput,
    enable_cache_report: false,
    weight_version: context.weightVersion,
    tp_size: 1,
    dp_size: 1,
    max_total_num_tokens: context.maxModelLen * 8,
    max_req_input_len: context.maxModelLen - 1,
    internal_states: [{ last_gen_throughput: 0.0 }],
    version: SGLANG_SIM_VERSION,
  };
}
