import type { ChatCallRenderer } from '../../backends/chat-call-renderer.js';
import type { HarnessAsked } from '../../backends/vllm-chat-request.js';
import { stripInjectedFields } from '../../backends/vllm-chat-response.js';
import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';
import { normalizeBackendErrorBody, toOpenAiErrorBody } from '../../errors/openai-error-body.js';

/**
 * Chat Completions to Chat Completions: the backend's answer goes out as it came, minus exactly what tokentap
 * injected and the harness did not ask for; every other field of every event is forwarded unchanged.
 *
 * @example const renderer = createOpenAiChatRenderer(asked)
 */
export function createOpenAiChatRenderer(asked: HarnessAsked): ChatCallRenderer {
  return {
    renderBody(completion) {
      stripInjectedFields(completion, asked, false);
      return completion;
    },
    streamHeaders: () => ({ 'content-type': 'text/event-stream; charset=utf-8' }),
    renderChunk(chunk) {
      return stripInjectedFields(chunk, asked, true) ? encodeSseEvent({ data: JSON.stringify(chunk) }) : '';
    },
    renderStreamEnd: () => 'data: [DONE]\n\n',
    renderStreamError(error, backendBody) {
      const body = backendBody === undefined ? toOpenAiErrorBody(error) : normalizeBackendErrorBody(backendBody, error.status);
      return encodeSseEvent({ data: JSON.stringify(body) });
    },
  };
}
