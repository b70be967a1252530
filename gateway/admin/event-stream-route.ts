import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../gateway-context.js';
import type { GatewayEventName, GatewayEvents } from '../rollouts/rollout-api.js';
import { encodeSseEvent } from '../../core/sse/encode-sse-event.js';
import { authorizeCaller } from './authorize-admin.js';
import { routeSchema } from './route-schema.js';

const EVENT_NAMES: readonly GatewayEventName[] = ['call-end', 'session-end', 'group-complete'];

/** A comment line now and then, so proxies and idle timeouts do not close a quiet stream. */
const KEEPALIVE_MS = 15_000;

/** What goes over the wire: the in-process `call-end` carries the whole call row, the stream only its summary. */
function wirePayload<E extends GatewayEventName>(event: E, payload: GatewayEvents[E]): unknown {
  if (event !== 'call-end') return payload;
  const { call: _call, ...summary } = payload as GatewayEvents['call-end'];
  return summary;
}

/**
 * `GET /tokentap/v1/events`: the gateway's events as server-sent events (`event: call-end`, `session-end`,
 * `group-complete`; `data:` the payload as JSON), for `connectGateway(...).on()`. Admin only. A reader more than
 * `eventStreamMaxBufferBytes` behind is cut off (it reconnects; events in between are not replayed).
 *
 * @example app.register(async (scope) => registerEventStreamRoute(scope, context), { prefix: '/tokentap/v1' })
 */
export function registerEventStreamRoute(app: FastifyInstance, context: GatewayContext): void {
  app.get(
    '/events',
    {
      schema: routeSchema({
        summary: 'Events as SSE: call-end, session-end, group-complete',
        access: 'admin',
        response: { 200: z.string().describe('text/event-stream') },
      }),
    },
    async (request, reply) => {
      authorizeCaller(request, context);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const limit = context.config.eventStreamMaxBufferBytes;
      // a reader that stopped reading is cut off instead of buffered for without bound; it reconnects
      const send = (text: string): void => {
        if (raw.destroyed) return;
        if (raw.writableLength > limit) {
          request.log.warn(
            { bufferedBytes: raw.writableLength, limit },
            'admin event stream reader fell too far behind: stream closed (events are not replayed)',
          );
          context.metrics.eventStreamCutOff();
          raw.destroy();
          return;
        }
        raw.write(text);
      };
      send(': tokentap events\n\n');
      const unsubscribe = EVENT_NAMES.map((name) =>
        context.rollouts.events.on(name, (payload) => send(encodeSseEvent({ event: name, data: JSON.stringify(wirePayload(name, payload)) }))),
      );
      const keepalive = setInterval(() => send(': keepalive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      raw.once('close', () => {
        clearInterval(keepalive);
        for (const off of unsubscribe) off();
      });
    },
  );
}
