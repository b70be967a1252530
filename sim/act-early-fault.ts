import type { FastifyReply } from 'fastify';
import { recordEarlyFault } from './generate-completion.js';
import type { SimContext } from './sim-context.js';
import type { ResolvedSimFault } from './sim-fault.js';
import type { SimGenerationRecord } from './sim-generation-record.js';
import { trackExchange } from './track-exchange.js';
import { VllmError, vllmErrorBody } from './vllm-error.js';

/**
 * Acts out the faults that strike before any generation; true when the request is dealt with.
 * - `refuse`: the socket is destroyed without a byte of answer;
 * - `http-error`: the status with its body and headers (vLLM's error shape unless a body is given);
 * - `stall-headers`: nothing is ever sent; the client's timeout or cancellation ends it (and is recorded).
 *
 * @example
 * if (actEarlyFault(context, record, decision.fault, reply)) return;
 */
export function actEarlyFault(context: SimContext, record: SimGenerationRecord, fault: ResolvedSimFault | null, reply: FastifyReply): boolean {
  if (fault === null) return false;
  switch (fault.kind) {
    case 'refuse':
      recordEarlyFault(context, record, fault, 0);
      reply.hijack();
      reply.raw.socket?.destroy();
      return true;
    case 'http-error': {
      const message = fault.message ?? `Simulated HTTP ${fault.status}`;
      record.error = message;
      recordEarlyFault(context, record, fault, fault.status);
      const body = fault.body ?? vllmErrorBody(new VllmError(fault.status, message), context.errorShape);
      void reply
        .code(fault.status)
        .type(typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json')
        .headers(fault.headers ?? {})
        .send(typeof body === 'string' ? body : JSON.stringify(body));
      return true;
    }
    case 'stall-headers':
      recordEarlyFault(context, record, fault, 0);
      trackExchange(context, record, reply);
      return true;
    default:
      return false;
  }
}
