import type { ServerOptions } from 'node:http';

/** Node's own interval for checking request timeouts. */
const NODE_CHECK_INTERVAL_MS = 30_000;

/**
 * The Node server options that make `requestTimeoutMs` hold: the timeout itself, given when the server is built
 * (Node reads it then: fastify setting it afterwards was found to change nothing, a trickling request was cut only
 * by the 60 s headers timeout), and a check interval of a quarter of a short timeout (Node's default 30 s
 * otherwise), so a 2 s timeout fires after about 2 s rather than up to 32.
 *
 * @example fastify({ http: { ...requestTimeoutOptions(config.requestTimeoutMs) }, requestTimeout: config.requestTimeoutMs })
 */
export function requestTimeoutOptions(requestTimeoutMs: number): Pick<ServerOptions, 'requestTimeout' | 'connectionsCheckingInterval'> {
  if (requestTimeoutMs === 0) return { requestTimeout: 0 };
  return {
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(NODE_CHECK_INTERVAL_MS, Math.max(100, Math.floor(requestTimeoutMs / 4))),
  };
}
