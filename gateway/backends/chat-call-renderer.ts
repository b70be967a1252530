import type { StreamAssembler } from './stream-assembler.js';
import type { TokentapError } from '../../core/errors/tokentap-error.js';

/**
 * How one front door speaks to its harness, given a backend chat call. The pipeline (run-chat-call.ts)
 * records and relays; the renderer only translates, so streaming and non-streaming share one translation.
 * Every method receives the backend's payload unstripped (the pipeline has already read tokens from it) and
 * may mutate it. It lives beside StreamAssembler, below calls/ (which drives it) and token-faithful/ (which wraps it).
 */
export interface ChatCallRenderer {
  /** the non-streamed answer: the harness's body built from the backend's chat completion */
  renderBody(completion: Record<string, unknown>): unknown;
  /** response headers of a stream (content type, protocol specifics) */
  streamHeaders(): Record<string, string>;
  /** SSE text to send for one backend chunk ('' to send nothing) */
  renderChunk(chunk: Record<string, unknown>, assembler: StreamAssembler): string;
  /** SSE text that ends a complete stream (`data: [DONE]`, `message_stop`, `response.completed` ...) */
  renderStreamEnd(assembler: StreamAssembler): string;
  /** SSE text reporting a failure after the stream started; the stream ends after it */
  renderStreamError(error: TokentapError, backendBody: unknown): string;
}
