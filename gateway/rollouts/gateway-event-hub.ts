import type { FastifyBaseLogger } from 'fastify';
import type { GatewayEventName, GatewayEvents } from './rollout-api.js';

type Listener<E extends GatewayEventName> = (payload: GatewayEvents[E]) => void;

/**
 * Typed events for live consumers (`call-end`, `session-end`, `group-complete`). A listener that throws is
 * logged and skipped: a consumer's bug must not fail a call or a session end.
 *
 * @example
 * const hub = new GatewayEventHub(logger);
 * const off = hub.on('session-end', (event) => console.log(event.sessionId, event.status));
 * off();
 */
export class GatewayEventHub {
  readonly #listeners = new Map<GatewayEventName, Set<Listener<GatewayEventName>>>();
  readonly #log: FastifyBaseLogger;

  constructor(log: FastifyBaseLogger) {
    this.#log = log;
  }

  on<E extends GatewayEventName>(event: E, listener: Listener<E>): () => void {
    const listeners = this.#listeners.get(event) ?? new Set();
    this.#listeners.set(event, listeners);
    listeners.add(listener as Listener<GatewayEventName>);
    return () => void listeners.delete(listener as Listener<GatewayEventName>);
  }

  /** whether anyone listens: `call-end` reads the call row only then */
  hasListeners(event: GatewayEventName): boolean {
    return (this.#listeners.get(event)?.size ?? 0) > 0;
  }

  emit<E extends GatewayEventName>(event: E, payload: GatewayEvents[E]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        this.#log.error({ err: error, event }, 'an event listener threw');
      }
    }
  }
}
