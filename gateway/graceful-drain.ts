import type { FastifyBaseLogger, FastifyInstance, RouteHandlerMethod } from 'fastify';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { settleWithin } from '../core/async/settle-within.js';

/** How long handlers may take to record their end once every connection is closed (they need milliseconds). */
const SETTLE_GRACE_MS = 10_000;

export interface GracefulDrainOptions {
  /** ms in-flight requests may take once close begins; then their connections are cut (0: at once) */
  timeoutMs: number;
  logger: FastifyBaseLogger;
}

/**
 * The gateway's side of a graceful shutdown (see installGracefulDrain).
 *
 * @example
 * const drain = installGracefulDrain(app, { timeoutMs: 30_000, logger });
 * app.addHook('onClose', async () => { await drain.settled(); await recorder.close(); });
 */
export interface GracefulDrain {
  /** true once close began: new requests are refused */
  readonly draining: boolean;
  /** route handlers still running (a streamed call runs until its last byte is written and its end recorded) */
  readonly inFlight: number;
  /**
   * Resolves once every handler has returned, its call recorded; gives up after SETTLE_GRACE_MS (a handler that
   * outlives its cut connection leaves its call `in_progress`, marked `incomplete` at the next start). Resolves to
   * the number of handlers still running then (0 when every one returned).
   */
  settled(): Promise<number>;
}

/**
 * Makes `app.close()` a graceful drain. Fastify's close stops listening (new connections are refused) and waits for
 * open connections to end; this adds what a recording gateway needs on top:
 * - requests arriving on an already open connection get 503 TT_SHUTTING_DOWN in their front door's error shape
 *   (fastify's own 503 is not in any protocol's shape) and `connection: close`;
 * - a keep-alive connection whose last response finished during the drain is closed at once, not after the
 *   keep-alive timeout (Node's server.close only reaps the connections idle when it is called);
 * - after `timeoutMs` every connection still open is cut: its calls see their harness leave, cancel the backend
 *   request and record themselves `aborted`;
 * - every route handler is tracked, so the recorder is closed only after the calls' ends were handed to it.
 * Call before registering routes (handlers are wrapped as routes are added).
 *
 * @example const drain = installGracefulDrain(app, { timeoutMs: config.shutdownTimeoutMs, logger });
 */
export function installGracefulDrain(app: FastifyInstance, options: GracefulDrainOptions): GracefulDrain {
  const running = new Set<Promise<void>>();
  let draining = false;
  let cutTimer: NodeJS.Timeout | undefined;
  const afterResponse = (): void => {
    // on 'finish' the socket is still attached to its response; a turn later it counts as idle
    if (draining) setImmediate(() => app.server.closeIdleConnections());
  };
  app.addHook('onRoute', (route) => {
    route.handler = trackHandler(route.handler, running);
  });
  // a callback hook, not an async one: it runs on every request, and a promise per request is not free
  app.addHook('onRequest', (request, reply, done) => {
    if (!draining) {
      reply.raw.once('finish', afterResponse);
      done();
      return;
    }
    void reply.header('connection', 'close');
    done(new TokentapError('TT_SHUTTING_DOWN', { message: 'tokentap is shutting down; retry against the restarted gateway' }));
  });
  app.addHook('preClose', async () => {
    draining = true;
    options.logger.info({ inFlight: running.size, timeoutMs: options.timeoutMs }, 'draining: new calls are refused, in-flight calls finish');
    cutTimer = setTimeout(() => {
      if (running.size > 0) options.logger.warn({ inFlight: running.size }, 'shutdown timeout: cutting the calls still running (recorded aborted)');
      app.server.closeAllConnections();
    }, options.timeoutMs);
  });
  app.addHook('onClose', async () => {
    clearTimeout(cutTimer);
  });
  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return running.size;
    },
    async settled() {
      if (running.size === 0) return 0;
      if ((await settleWithin(Promise.all([...running]), SETTLE_GRACE_MS)) !== null) return 0;
      options.logger.error({ inFlight: running.size }, 'calls still running after their connections were cut: left in progress');
      return running.size;
    },
  };
}

/** Wraps a route handler so the promise it returns is tracked until it settles; what it returns is unchanged. */
function trackHandler(handler: RouteHandlerMethod, running: Set<Promise<void>>): RouteHandlerMethod {
  return function tracked(this: FastifyInstance, request, reply) {
    const result: unknown = handler.call(this, request, reply);
    if (result instanceof Promise) {
      const settled = result.then(
        () => undefined,
        () => undefined,
      );
      running.add(settled);
      void settled.then(() => running.delete(settled));
    }
    return result;
  } as RouteHandlerMethod;
}
