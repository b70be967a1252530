import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { VIEWER_API_PREFIX } from '../../ui/viewer-api.js';
import type { GatewayContext } from '../gateway-context.js';
import { adminErrorHandler } from './admin-error-handler.js';
import { authorizeCaller } from './authorize-admin.js';
import { registerBackendRoutes } from './backend-routes.js';
import { registerBatchRoutes } from './batch-routes.js';
import { registerControlRoutes } from './control-routes.js';
import { registerEventStreamRoute } from './event-stream-route.js';
import { registerSessionRoutes } from './session-routes.js';

/** Where the rollout API lives. */
export const ADMIN_PREFIX = '/tokentap/v1';

/**
 * The rollout API under /tokentap/v1 (docs/rollouts.md), its one error shape, and its OpenAPI document at
 * `GET /tokentap/v1/openapi.json` (@fastify/swagger; the front doors are not in it: they are OpenAI's and
 * Anthropic's APIs). Input is validated by the handlers with zod, so fastify's own validation and response
 * serialization are off in this scope: route schemas only document.
 *
 * @example registerAdminApi(app, context) // before app.ready()
 */
export function registerAdminApi(app: FastifyInstance, context: GatewayContext): void {
  void app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'tokentap rollout API',
        version: '1',
        description:
          'Sessions as rollouts, rewards, groups, policy versions, pause and drain, backend replicas. Errors: {"error":{"code","message"}}.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'the admin token, or a session key (tt-...) for its own session' },
        },
      },
    },
    // only the rollout API and the viewer's (serve --ui): every route registered after this plugin passes here, and
    // only those are documented
    transform: ({ schema, url }) => ({
      schema: url.startsWith(ADMIN_PREFIX) || url.startsWith(VIEWER_API_PREFIX) ? schema : { ...schema, hide: true },
      url,
    }),
  });
  void app.register(
    async (scope) => {
      adminErrorHandler.setOn(scope);
      scope.setValidatorCompiler(() => () => true);
      scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
      registerSessionRoutes(scope, context);
      registerControlRoutes(scope, context);
      registerEventStreamRoute(scope, context);
      registerBatchRoutes(scope, context);
      registerBackendRoutes(scope, context.fleet, (request) => authorizeCaller(request, context));
      scope.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: ADMIN_PREFIX },
  );
}
