import type { FastifyError, FastifyInstance } from 'fastify';
import type { Recorder } from '../recorder/recorder.js';
import type { TokenFaithfulCounters } from '../token-faithful/token-faithful-counters.js';
import { fromFastifyError } from '../errors/from-fastify-error.js';
import type { BackendFleet } from '../backends/fleet/fleet-types.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { backendsHealth } from './backends-health.js';
import { frontDoorOfRoute } from './front-door-of-route.js';

/** What the observability routes read: the gateway's metrics, the recorder's health and the token-faithful counters. */
export interface ObservabilityContext {
  metrics: GatewayMetrics;
  recorder: Pick<Recorder, 'health' | 'counters'>;
  tokenFaithful?: { readonly counters: TokenFaithfulCounters };
  /** the backend replicas: their reachability and token ids are part of the gateway's health */
  fleet?: Pick<BackendFleet, 'snapshot'>;
}

/**
 * `/healthz` and `/metrics`, and the hooks that count every request and every error answered. Both routes are
 * open, like any route of a gateway bound to loopback by default: they carry counts and codes, never a session id,
 * a model name, a key or a body (docs/reliability.md, "Disk trouble and metrics").
 *
 * `/healthz` answers `ok`; `degraded` (still 200: calls are served, or refused by `recordFailure`, and a restart
 * would not free a full disk) while the newest store write failed or a call's end waits to be written again
 * (`recording.endsWaiting`), or a backend replica is down or returns no token ids; `unhealthy` (503) once recording
 * is given up, or when some model's pool has no replica up (its calls would fail: gateway/metrics/backends-health.ts).
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
    const backends = context.fleet === undefined ? undefined : backendsHealth(context.fleet.snapshot());
    // a gateway that can no longer record, or whose backends cannot serve some model, is not healthy: calls would fail
    const unhealthy = !healthy || backends?.verdict === 'unhealthy';
    if (unhealthy) void reply.code(503);
    const degraded = recording.failing || recording.endsWaiting > 0 || backends?.verdict === 'degraded';
    return {
      status: unhealthy ? 'unhealthy' : degraded ? 'degraded' : 'ok',
      recording: { ...context.recorder.counters, ...recording },
      ...(backends === undefined ? {} : { backends: backends.section }),
      ...(context.tokenFaithful === undefined ? {} : { tokenFaithful: context.tokenFaithful.counters }),
    };
  });
  app.get('/metrics', async (_request, reply) => {
    void reply.type(metrics.contentType);
    return metrics.exposition();
  });
}
