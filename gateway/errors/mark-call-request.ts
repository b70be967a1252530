import type { FastifyRequest } from 'fastify';

/** Requests whose model call was begun (recorded), so their end is logged in the call's own line. */
const CALL_REQUESTS = new WeakSet<FastifyRequest>();

/**
 * Marks a request as carrying a recorded call: its failure is reported once, in the call's line
 * (calls/log-call-ends.ts), and the request's other lines (at debug) carry the call's id to find it by.
 *
 * @example markCallRequest(request, callId) // right after recorder.begin()
 */
export function markCallRequest(request: FastifyRequest, callId: string): void {
  CALL_REQUESTS.add(request);
  request.log = request.log.child({ callId });
}

/** @example if (isCallRequest(request)) request.log.debug(...) // its call line said it already */
export function isCallRequest(request: FastifyRequest): boolean {
  return CALL_REQUESTS.has(request);
}
