import type { FastifyRequest } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { GatewayContext } from '../gateway-context.js';
import { isLoopbackHost } from '../security/public-bind-warnings.js';
import { authorizeCaller } from './authorize-admin.js';

/**
 * Who may read the viewer's API on `serve --ui` (docs/viewer.md): the admin, as on the rollout API, whenever an admin
 * token is set; on a gateway bound to loopback without one, anyone who reaches it (as `/healthz` and `/metrics`);
 * bound beyond loopback without one, no one (401: every prompt and completion is in there). A session key is 403:
 * the viewer shows every session.
 *
 * @example registerViewer(app, { ..., authorize: (request) => authorizeViewer(request, context) })
 */
export function authorizeViewer(request: FastifyRequest, context: GatewayContext): void {
  if (context.config.adminToken === undefined) {
    if (isLoopbackHost(context.config.host)) return;
    throw new TokentapError('TT_UNAUTHORIZED', {
      message: `The viewer's API is off: this gateway is bound to ${context.config.host}, beyond loopback, without --admin-token (or TOKENTAP_ADMIN_TOKEN)`,
    });
  }
  authorizeCaller(request, context);
}
