import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../sim-context.js';
import { registerGenerate } from './handle-generate.js';
import { registerSglangChat } from './handle-sglang-chat.js';
import { registerSglangCompletions } from './handle-sglang-completion.js';
import { registerSglangServiceRoutes } from './sglang-service-routes.js';

/**
 * Every route of the SGLang flavour: native `/generate`, the OpenAI-compatible chat and completions, the service
 * routes. Written from SGLang's own source (python/sglang/srt/entrypoints/, managers/); nothing here is shared with
 * the gateway's SGLang client.
 *
 * @example
 * registerSglangRoutes(app, context);
 */
export function registerSglangRoutes(app: FastifyInstance, context: SimContext): void {
  registerGenerate(app, context);
  registerSglangChat(app, context);
  registerSglangCompletions(app, context);
  registerSglangServiceRoutes(app, context);
}
