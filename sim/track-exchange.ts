import type { FastifyReply } from 'fastify';
import type { SimContext } from './sim-context.js';
import type { SimGenerationRecord } from './sim-generation-record.js';

/** One request's connection as the writers see it. */
export interface Exchange {
  /** aborted when the connection closes (cancellation or teardown) */
  readonly signal: AbortSignal;
  /** the raw response to write to (the reply is hijacked) */
  readonly response: FastifyReply['raw'];
  /** destroys the socket on purpose (faults): not a client cancellation */
  destroy(): void;
}

/**
 * Takes over the response from fastify and watches the connection: if it closes before the response was
 * complete, and neither a fault nor the server's own shutdown closed it, the client cancelled. The record
 * is then marked `cancelled` and a `cancel` event is emitted.
 *
 * @example
 * const exchange = trackExchange(context, record, reply);
 * await writeStream(exchange, events, options);
 */
export function trackExchange(context: SimContext, record: SimGenerationRecord, reply: FastifyReply): Exchange {
  reply.hijack();
  const response = reply.raw;
  const controller = new AbortController();
  let closedOnPurpose = false;
  response.once('close', () => {
    controller.abort();
    if (response.writableFinished || closedOnPurpose || context.closing) return;
    record.cancelled = true;
    context.events.emit('cancel', record);
  });
  return {
    signal: controller.signal,
    response,
    destroy() {
      closedOnPurpose = true;
      response.socket?.destroy();
      response.destroy();
    },
  };
}
