import type { ChatCallRenderer } from '../../backends/chat-call-renderer.js';
import { isRecord } from '../../../core/json/is-record.js';
import { responseObject, type ResponseEnvelope } from './responses-envelope.js';
import { chatMessageToOutput, createItemIds, toResponsesUsage, type OutputItem } from './responses-output-items.js';
import { ResponsesStreamTranslator } from './responses-stream-translator.js';
import type { ResponsesToolNames } from './responses-tools.js';
import { normalizeBackendErrorBody, toOpenAiErrorBody } from '../../errors/openai-error-body.js';

export interface OpenAiResponsesRendererOptions {
  envelope: ResponseEnvelope;
  names: ResponsesToolNames;
  /** called with the output items of a completed or incomplete response (to keep it for `previous_response_id`) */
  onFinished?: (output: OutputItem[]) => void;
}

/**
 * Chat Completions to Responses: a backend chat completion becomes a `response` object, a backend chat
 * stream becomes Responses stream events (responses-stream-translator.ts). Token ids and logprobs tokentap
 * injected never reach the harness: the Responses shape has no place for them.
 *
 * @example const renderer = createOpenAiResponsesRenderer({ envelope, names })
 */
export function createOpenAiResponsesRenderer(options: OpenAiResponsesRendererOptions): ChatCallRenderer {
  const { envelope, names } = options;
  const translator = new ResponsesStreamTranslator(envelope, names);
  return {
    renderBody(completion) {
      const choices = Array.isArray(completion.choices) ? completion.choices : [];
      const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
      const message = isRecord(choice) && isRecord(choice.message) ? choice.message : {};
      const output = chatMessageToOutput(message, names, createItemIds(envelope.id));
      const incomplete = isRecord(choice) && choice.finish_reason === 'length';
      options.onFinished?.(output);
      return responseObject(envelope, {
        status: incomplete ? 'incomplete' : 'completed',
        output,
        usage: toResponsesUsage(completion.usage),
        ...(incomplete ? { incompleteReason: 'max_output_tokens' } : {}),
      });
    },
    streamHeaders: () => ({ 'content-type': 'text/event-stream; charset=utf-8' }),
    renderChunk: (chunk) => translator.chunk(chunk),
    renderStreamEnd() {
      const text = translator.end();
      options.onFinished?.(translator.output);
      return text;
    },
    renderStreamError(error, backendBody) {
      const body = backendBody === undefined ? toOpenAiErrorBody(error) : normalizeBackendErrorBody(backendBody, error.status);
      return translator.fail(body.error);
    },
  };
}
