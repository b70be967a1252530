import type { ChatTokenRecord } from './chat-token-record.js';

/**
 * Gathers what one backend call yielded, from a whole body or from stream payloads as they arrive: token ids,
 * logprobs, usage and the assembled response. One implementation per backend endpoint (chat, completions).
 */
export interface StreamAssembler {
  /** one streamed payload (a `data:` event's JSON), before anything is stripped from it */
  add(payload: Record<string, unknown>): void;
  /** a whole non-streamed body */
  addBody(body: Record<string, unknown>): void;
  /** true once the backend said how the generation finished */
  readonly finished: boolean;
  tokenRecord(): ChatTokenRecord;
  /** the call as one non-streamed body (what the backend would have returned without streaming) */
  responseBody(): Record<string, unknown>;
}
