import { isRecord } from '../../core/json/is-record.js';
import type { ChatCallRenderer } from '../backends/chat-call-renderer.js';
import { prepareChatRequest } from '../backends/vllm-chat-request.js';
import { prepareCompletionRequest } from '../backends/vllm-completion-request.js';
import { createAnthropicMessagesRenderer } from '../protocols/anthropic-messages/anthropic-messages-renderer.js';
import { createOpenAiChatRenderer } from '../protocols/openai-chat/openai-chat-renderer.js';
import { createOpenAiCompletionsRenderer } from '../protocols/openai-completions/openai-completions-renderer.js';
import { createOpenAiResponsesRenderer } from '../protocols/openai-responses/openai-responses-renderer.js';
import { translateResponsesTools } from '../protocols/openai-responses/responses-tools.js';

/** What of a recorded call the harness's answer is rebuilt from (a store's `CallRow` and `CallBodies` have it). */
export interface RecordedAnswer {
  frontDoor: string;
  /** the harness's body as received */
  requestBody: unknown;
  /** the backend's answer as recorded: the chat (or completion) body, for a stream the body assembled from its chunks */
  responseBody: unknown;
  /** the request the backend was sent (the Responses envelope falls back to its model) */
  backendRequestBody: unknown;
  metadata: Record<string, unknown>;
  startedAt: number;
  endedAt: number | null;
}

/** The answer in the harness's protocol, and the fields of it the record cannot reproduce exactly. */
export interface HarnessResponseBody {
  /** 'openai-chat' | 'openai-completions' | 'anthropic-messages' | 'openai-responses' */
  protocol: string;
  body: Record<string, unknown>;
  /** `field: why` for each field that is not what the harness got to the byte (empty when all are) */
  notReproduced: string[];
}

/**
 * The body the harness was answered with, rebuilt by the front door's own renderer (`renderBody`) from the recorded
 * backend answer and the harness's request, fed as the front door fed it: an Anthropic Message, a Responses
 * `response` object, or the OpenAI body minus what tokentap injected. For a streamed call it is the non-streamed body
 * of the same answer (the stream's events carry the same content, ids and usage). null when no answer was recorded
 * or the front door has no renderer.
 *
 * @example harnessResponseBody({ ...call, ...store.getCallBodies(call.id) })?.body
 * // { id: 'msg_chatcmpl-…', type: 'message', content: [{ type: 'text', text: 'Hi' }], ... }
 */
export function harnessResponseBody(recorded: RecordedAnswer): HarnessResponseBody | null {
  const { requestBody, responseBody } = recorded;
  if (!isRecord(requestBody) || !isRecord(responseBody)) return null;
  const made = rendererFor(recorded, requestBody);
  if (made === null) return null;
  // renderers strip the payload in place: the caller's recorded body stays as stored
  const rendered = made.renderer.renderBody(structuredClone(responseBody));
  if (!isRecord(rendered)) return null;
  if (requestBody.stream === true && (recorded.frontDoor === 'openai-chat' || recorded.frontDoor === 'openai-completions')) {
    // the assembler's marker is tokentap's; a stream carries usage only when the harness asked for it
    delete rendered.assembled_from_stream;
    const streamOptions = isRecord(requestBody.stream_options) ? requestBody.stream_options : {};
    if (streamOptions.include_usage !== true) delete rendered.usage;
  }
  if (recorded.frontDoor === 'openai-responses' && rendered.completed_at !== undefined) {
    // stamped with the clock when the answer went out, which is not stored: the call's end is the nearest record
    if (recorded.endedAt !== null) rendered.completed_at = Math.floor(recorded.endedAt / 1000);
    made.notReproduced.push('completed_at: the time the answer went out is not stored; this is when the call ended');
  }
  return { protocol: recorded.frontDoor, body: rendered, notReproduced: made.notReproduced };
}

function rendererFor(recorded: RecordedAnswer, body: Record<string, unknown>): { renderer: ChatCallRenderer; notReproduced: string[] } | null {
  switch (recorded.frontDoor) {
    case 'openai-chat':
      return { renderer: createOpenAiChatRenderer(prepareChatRequest(body, { topLogprobs: 0 }).asked), notReproduced: [] };
    case 'openai-completions':
      return { renderer: createOpenAiCompletionsRenderer(prepareCompletionRequest(body, { topLogprobs: 0 }).asked), notReproduced: [] };
    case 'anthropic-messages': {
      // as anthropic-messages.ts: the requested name, the request's stop sequences
      const model = typeof body.model === 'string' ? body.model : null;
      const stopSequences = Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((entry) => typeof entry === 'string') : [];
      return { renderer: createAnthropicMessagesRenderer({ model, stopSequences }), notReproduced: [] };
    }
    case 'openai-responses':
      return responsesRenderer(recorded, body);
    default:
      return null;
  }
}

/** The envelope openai-responses.ts built: its id and creation time are in the call's metadata. */
function responsesRenderer(recorded: RecordedAnswer, body: Record<string, unknown>): { renderer: ChatCallRenderer; notReproduced: string[] } {
  const notReproduced: string[] = [];
  const stored = isRecord(recorded.metadata.responses) ? recorded.metadata.responses : {};
  const id = typeof stored.responseId === 'string' ? stored.responseId : 'resp_unknown';
  if (typeof stored.responseId !== 'string') notReproduced.push('id: the response id was not recorded with this call');
  // calls recorded before the creation time was kept: the call started within the same second or the next
  const createdAt = typeof stored.createdAt === 'number' ? stored.createdAt : Math.floor(recorded.startedAt / 1000);
  if (typeof stored.createdAt !== 'number') notReproduced.push('created_at: not recorded with this call; this is when the call started');
  const backendBody = isRecord(recorded.backendRequestBody) ? recorded.backendRequestBody : {};
  const model = typeof body.model === 'string' ? body.model : String(backendBody.model ?? '');
  const { names } = translateResponsesTools(body.tools as unknown[] | null | undefined);
  return { renderer: createOpenAiResponsesRenderer({ envelope: { id, createdAt, model, request: body }, names }), notReproduced };
}
