import { z } from 'zod';

const tokenCount = z.number().int().min(0);

/**
 * The failures the simulator can act out, for one script entry or (option `fault`) for every request.
 * `afterTokens` counts streamed token chunks; on a non-streamed request the failure hits the body instead.
 */
export const simFaultSchema = z.discriminatedUnion('kind', [
  /** destroy the socket without answering (ECONNRESET / "socket hang up" at the client) */
  z.strictObject({ kind: z.literal('refuse') }),
  /** answer with this status; the body defaults to vLLM's error shape, `headers` e.g. `{ "retry-after": "2" }` */
  z.strictObject({
    kind: z.literal('http-error'),
    status: z.number().int().min(400).max(599),
    message: z.string().optional(),
    body: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  /** read the request and never send headers (the client's headers timeout must fire) */
  z.strictObject({ kind: z.literal('stall-headers') }),
  /** headers at once, then the body trickles: `chunkBytes` every `delayMs` (non-stream), `delayMs` between chunks (stream) */
  z.strictObject({
    kind: z.literal('slow-body'),
    delayMs: z.number().int().min(0).default(50),
    chunkBytes: z.number().int().min(1).default(64),
  }),
  /** destroy the socket after `afterTokens` token chunks (non-stream: after half of the body) */
  z.strictObject({ kind: z.literal('cut-stream'), afterTokens: tokenCount.default(0) }),
  /** the chunk at `afterTokens` (non-stream: the body) is cut-off JSON; the stream then goes on normally */
  z.strictObject({ kind: z.literal('malformed-json'), afterTokens: tokenCount.default(0) }),
  /** from `afterTokens` on, events lose their blank-line separators and a line without a field appears */
  z.strictObject({ kind: z.literal('malformed-sse'), afterTokens: tokenCount.default(0) }),
  /** the response's token ids disagree with its tokens: the first completion id is sent twice */
  z.strictObject({ kind: z.literal('wrong-token-ids') }),
]);

/** A fault as written in a script or option (defaults not yet applied). */
export type SimFault = z.input<typeof simFaultSchema>;
/** A fault with its defaults applied. */
export type ResolvedSimFault = z.output<typeof simFaultSchema>;
export type SimFaultKind = ResolvedSimFault['kind'];
