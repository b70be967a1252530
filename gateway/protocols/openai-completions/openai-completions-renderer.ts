import type { ChatCallRenderer } from '../../backends/chat-call-renderer.js';
import type { CompletionAsked } from '../../backends/vllm-completion-request.js';
import { stripCompletionFields } from '../../backends/vllm-completion-response.js';
import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';
import { normalizeBackendErrorBody, toOpenAiErrorBody } from '../../errors/openai-error-body.js';

/**
 * Completions to Completions: the backend's answer goes out as it came, minus exactly what tokentap injected and
 * the harness did not ask for (choice `prompt_token_ids` / `token_ids`, logprobs, the usage-only chunk).
 *
 * @example const renderer = createOpenAiCompletionsRenderer(asked)
 */
export function createOpenAiCompletionsRenderer(asked: CompletionAsked): ChatCallRenderer {
  return {
    renderBody(completion) {
      stripCompletionFields(completion, asked, false);
      return completion;
    },
    streamHeaders: () => ({ 'content-type': 'text/event-stream; charset=utf-8' }),
    renderChunk(chunk) {
      return stripCompletionFields(chunk, asked, true) ? encodeSseEvent({ data: JSON.stringify(chunk) }) : '';
    },
    renderStreamEnd: () => 'data: [DONE]\n\n',
    renderStreamError(error, backendBody) {
      const body = backendBody === undefined ? toOpenAiErrorBody(error) : normalizeBackendErrorBody(backendBody, error.status);
      return encodeSseEvent({ data: JSON.stringify(body) });
    },
  };
}
