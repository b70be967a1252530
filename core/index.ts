/**
 * The ground floor's surface, for the library (the root index.ts): the one error class and its code table, and
 * the SSE decoder and encoder.
 *
 * @example if (isTokentapError(error)) console.error(error.code, error.message)
 */
export { TokentapError, isTokentapError } from './errors/tokentap-error.js';
export { ERROR_CODES, type ErrorCode } from './errors/error-codes.js';
export { SseDecoder, type SseEvent } from './sse/sse-decoder.js';
export { encodeSseEvent } from './sse/encode-sse-event.js';
