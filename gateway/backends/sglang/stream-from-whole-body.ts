import { Readable } from 'node:stream';
import { isRecord } from '../../../core/json/is-record.js';
import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';
import { readBackendBody } from '../read-backend-body.js';
import type { BackendResponse } from '../vllm.js';
import { chatChunksFromBody } from './chat-chunks-from-body.js';

/**
 * A whole chat completion as the stream the harness asked for (adapt-call.ts `wholeBodyAsStream`): the backend's
 * body is read and answered as `chat.completion.chunk` events (chat-chunks-from-body.ts) ending with `[DONE]`, so
 * the stream relay serves it unchanged. An error status, or a body that is no chat completion, comes back as it
 * was (status, headers, text) for the relay to answer or refuse. A read that fails throws, mapped
 * (`TT_BACKEND_STREAM_CUT`, ...), as `readBackendBody` does.
 *
 * @example const response = await streamFromWholeBody(await lease.client.postJson('/v1/chat/completions', body, signal))
 */
export async function streamFromWholeBody(response: BackendResponse): Promise<BackendResponse> {
  const { text, json } = await readBackendBody(response);
  if (response.statusCode >= 400 || !isChatCompletion(json)) return { ...response, body: bodyOf(text) };
  const events = chatChunksFromBody(json).map((chunk) => encodeSseEvent({ data: JSON.stringify(chunk) }));
  events.push(encodeSseEvent({ data: '[DONE]' }));
  return {
    statusCode: response.statusCode,
    headers: { ...withoutLength(response.headers), 'content-type': 'text/event-stream' },
    body: bodyOf(events.join('')),
    headersAt: response.headersAt,
  };
}

function isChatCompletion(json: unknown): json is Record<string, unknown> {
  return isRecord(json) && Array.isArray(json.choices) && json.choices.every((choice) => isRecord(choice) && isRecord(choice.message));
}

function bodyOf(text: string): BackendResponse['body'] {
  return Readable.from([Buffer.from(text, 'utf8')]) as BackendResponse['body'];
}

/** The body's own length no longer describes the stream made from it. */
function withoutLength(headers: BackendResponse['headers']): BackendResponse['headers'] {
  const { 'content-length': _length, ...rest } = headers;
  return rest;
}
