import type { FastifyError, FastifyInstance } from 'fastify';
import type { Recorder } from '../recorder/recorder.js';
import type { TokenFaithfulCounters } from '../token-faithful/token-faithful-counters.js';
import { fromFastifyError } from '../errors/from-fastify-error.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { frontDoorOfRoute } from './front-door-of-route.js';

/** What the observability routes read: the gateway's metrics, the recorder's health and the token-faithful counters. */
export interface ObservabilityContext {
  metrics: GatewayMetrics;
  recorder: Pick<Recorder, 'health' | 'counters'>;
  tokenFaithful?: { readonly counters: TokenFaithfulCounters };
}

/**
 * `/healthz` and `/metrics`, and the hooks that count every request and every error answered. Both routes are
 * open, like any route of a gateway bound to loopback by default: they carry counts and codes, never a session id,
 * a model name, a key or a body (docs/reliability.md, "Disk trouble and metrics").
 *
 * `/healthz` answers `ok`; `degraded` (still 200: calls are served, or refused by `recordFailure`, and a restart
 * would not free a full disk) while the newest store write failed or a call's end waits to be written again
 * (`recording.endsWaiting`); `unhealthy` (503) once recording is given up.
 *
 * @example registerObservabilityRoutes(app, context) // before the front doors, so the hooks see every route
 */
export function registerObservabilityRoutes(app: FastifyInstance, context: ObservabilityContext): void {
  const { metrics } = context;
  app.addHook('onResponse', async (request, reply) => {
    metrics.requestAnswered(frontDoorOfRoute(request.routeOptions.url), reply.statusCode);
  });
  // runs before the scope's error handler, once per error answered with an error status, in the code it is answered with
  app.addHook('onError', async (request, _reply, error) => {
    const { code } = fromFastifyError(error as FastifyError);
    // a harness that left is counted once, in tokentap_client_aborts_total, when its call is recorded `aborted`
    if (code === 'TT_CLIENT_ABORTED') return;
    metrics.errorAnswered(frontDoorOfRoute(request.routeOptions.url), code);
  });
  app.get('/healthz', async (_request, reply) => {
    const { healthy, ...recording } = context.recorder.health();
    // a gateway that can no longer record is not healthy: every call would fail (or go unrecorded)
    if (!healthy) void reply.code(503);
    const status = !healthy ? 'unhealthy' : recording.failing || recording.endsWaiting > 0 ? 'degraded' : 'ok';
    return {
      status,
      recording: { ...context.recorder.counters, ...recording },
      ...(context.tokenFaithful === undefined ? {} : { tokenFaithful: context.tokenFaithful.counters }),
    };
  });
  app.get('/metrics', async (_request, reply) => {
    void reply.type(metrics.contentType);
    return metrics.exposition();
  });
}
