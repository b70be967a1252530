import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CODES, type HttpErrorCode } from '../../core/errors/error-codes.js';

/** The HTTP parser's failures worth a word to the client (https://nodejs.org/api/http.html#event-clienterror). */
const CODES_BY_PARSER_ERROR: Record<string, HttpErrorCode> = {
  HPE_HEADER_OVERFLOW: 'TT_HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'TT_REQUEST_TIMEOUT',
};

/**
 * Answers a request the HTTP parser refused before any route saw it (headers over `maxHeaderSize`, a CR or LF
 * inside a header value, a malformed request line, a request too slow to arrive), then closes the socket. The
 * protocol is not known yet, so the body is one object every client reads: Anthropic's shape (`type: "error"`,
 * `error.type`, `error.message`) whose `error` also carries OpenAI's and the rollout API's `code`.
 *
 * @example fastify({ clientErrorHandler: answerClientError })
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // a reset connection has no one to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code = CODES_BY_PARSER_ERROR[error.code ?? ''] ?? 'TT_INVALID_REQUEST';
  const entry = ERROR_CODES[code];
  const message =
    code === 'TT_INVALID_REQUEST' ? 'Malformed HTTP request (a header value with CR or LF, a bad request line or header)' : entry.message;
  const body = JSON.stringify({ type: 'error', error: { type: entry.type, message, code } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${entry.status} ${STATUS_CODES[entry.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
