import { TokentapError } from '../../core/errors/tokentap-error.js';

/** undici and socket failure codes, matched by `error.code` as undici's docs advise (not `instanceof`). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/**
 * The undici or system code behind a backend failure (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...), looked for through
 * the causes; a TokentapError's own `TT_*` code is skipped, so a mapped failure still tells what happened.
 *
 * @example backendFailureCode(mapBackendFailure(error, { started: false })) // 'ECONNREFUSED'
 */
export function backendFailureCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && !(error instanceof TokentapError)) return code;
  // undici wraps socket errors: the cause holds the system code
  return backendFailureCode((error as { cause?: unknown }).cause);
}

/**
 * Maps a failure of the backend request (before or during the body) to a TokentapError, keeping the cause.
 * `started` tells whether the backend had begun answering (then a reset is a cut stream, not an unreachable backend).
 * `clientGone` tells that the harness left first: the gateway cancelled the request itself, so whatever undici
 * reports (an abort, a destroyed body, already mapped or not) is TT_CLIENT_ABORTED, never a backend failure
 * (issue 12: harness aborts raised TT_BACKEND_UNREACHABLE alerts).
 *
 * @example
 * catch (error) { throw mapBackendFailure(error, { started: false, clientGone: signal.aborted }) }
 */
export function mapBackendFailure(error: unknown, context: { started: boolean; clientGone?: boolean }): TokentapError {
  if (context.clientGone === true) {
    if (error instanceof TokentapError && error.code === 'TT_CLIENT_ABORTED') return error;
    return new TokentapError('TT_CLIENT_ABORTED', {
      message: 'The harness closed its connection before the answer was complete; the backend request was cancelled',
      cause: error,
    });
  }
  if (error instanceof TokentapError) return error;
  const code = backendFailureCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new TokentapError('TT_BACKEND_TIMEOUT', { message: `Inference backend timed out (${code})`, cause: error });
  }
  if (context.started) {
    return new TokentapError('TT_BACKEND_STREAM_CUT', { message: `Inference backend closed the stream: ${code ?? detail}`, cause: error });
  }
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return new TokentapError('TT_BACKEND_UNREACHABLE', { message: `Inference backend unreachable (${code})`, cause: error });
  }
  return new TokentapError('TT_BACKEND_UNREACHABLE', { message: `Inference backend request failed: ${detail}`, cause: error });
}
