import type { ChatCallRenderer } from '../../backends/chat-call-renderer.js';
import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';
import { toAnthropicMessage, type AnthropicAnswerOptions } from './anthropic-message-body.js';
import { AnthropicStreamEvents } from './anthropic-stream-events.js';
import { toAnthropicError } from './anthropic-error-body.js';

/**
 * Chat Completions to Anthropic Messages, for one call: a whole completion becomes a Message, a stream becomes
 * Anthropic's named events as the chunks arrive, and a failure after the stream started an `error` event.
 * Nothing tokentap injected (token ids, logprobs, usage chunks) can leak: only translated fields go out.
 *
 * @example const renderer = createAnthropicMessagesRenderer({ model: 'claude-sonnet-4-5', stopSequences: [] })
 */
export function createAnthropicMessagesRenderer(options: AnthropicAnswerOptions): ChatCallRenderer {
  const events = new AnthropicStreamEvents(options);
  return {
    renderBody: (completion) => toAnthropicMessage(completion, options),
    streamHeaders: () => ({ 'content-type': 'text/event-stream; charset=utf-8' }),
    renderChunk: (chunk) => events.chunk(chunk),
    renderStreamEnd: (assembler) => events.end(assembler.tokenRecord().completionTokenIds?.length ?? 0),
    renderStreamError(error, backendBody) {
      const { body } = toAnthropicError(error, backendBody);
      return encodeSseEvent({ event: 'error', data: JSON.stringify(body) });
    },
  };
}
