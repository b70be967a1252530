import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

/** How long a refused upload may go on being read (and discarded) after its answer, before the socket is closed. */
export const LINGER_MS = 5_000;

/**
 * Lingering close (RFC 9112 section 9.6) for an answer sent while the request body is still arriving, as a 413 or
 * 415 is: fastify asks for `Connection: close`, and closing a socket with unread data makes the kernel send a reset,
 * which can destroy the answer before the client reads it: fetch then saw EPIPE instead of the 413 (an SDK
 * retries that as a network error, uploading the body again). Instead the connection stays open and the rest of the
 * body is read and thrown away (never buffered) until it ends or LINGER_MS pass, then the socket is closed.
 *
 * @example registerLingeringClose(app) // before the routes' scopes
 */
export function registerLingeringClose(app: FastifyInstance, lingerMs = LINGER_MS): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // 4xx only: a 503 while shutting down closes as it asks, the drain must not wait on a lingering upload
    if (request.raw.complete || reply.statusCode >= 500 || reply.getHeader('connection') !== 'close') return payload;
    void reply.removeHeader('connection');
    const socket: Socket = request.raw.socket;
    reply.raw.once('finish', () => {
      if (request.raw.complete) return;
      // flowing with no listener: what still arrives is discarded as it comes
      request.raw.resume();
      const timer = setTimeout(() => socket.destroy(), lingerMs);
      timer.unref();
      request.raw.once('end', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    return payload;
  });
}
