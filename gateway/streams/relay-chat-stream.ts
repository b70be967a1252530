import type { FastifyReply } from 'fastify';
import type { BackendResponse } from '../backends/vllm.js';
import { ChatStreamAssembler } from '../backends/chat-stream-assembler.js';
import { isBackendErrorPayload, stripInjectedFields } from '../backends/vllm-chat-response.js';
import type { HarnessAsked } from '../backends/vllm-chat-request.js';
import { TokentapError } from '../errors/tokentap-error.js';
import { mapBackendFailure } from '../errors/map-backend-failure.js';
import { isRecord } from '../json/is-record.js';
import { SseDecoder } from '../sse/sse-decoder.js';
import { encodeSseEvent } from '../sse/encode-sse-event.js';
import { normalizeBackendErrorBody, toOpenAiErrorBody } from '../front-doors/openai-error-body.js';
import { finishInput, type CallTiming } from '../recorder/finish-inputs.js';
import type { CallRecorder } from '../recorder/call-recorder.js';
import { writeWithBackpressure } from './write-with-backpressure.js';

export interface RelayChatStreamOptions {
  reply: FastifyReply;
  response: BackendResponse;
  asked: HarnessAsked;
  callId: string | null;
  recorder: CallRecorder;
  timing: CallTiming;
  /** true once the harness went away (the backend request is then aborted by the caller's signal) */
  clientGone: () => boolean;
}

/** Stream outcome before recording: either the stream completed, or an error to report and record. */
type StreamEnd = { kind: 'done' } | { kind: 'error'; error: TokentapError; backendBody?: unknown } | { kind: 'aborted' };

/**
 * Relays a vLLM chat stream to the harness event by event, as it arrives: each event is decoded, read for
 * tokens, stripped of what tokentap injected, re-encoded and written (waiting for the harness to drain).
 * The call is committed to the store before `data: [DONE]` is written, so a finished stream is always stored.
 *
 * @example await relayChatStream({ reply, response, asked, callId, recorder, timing, clientGone })
 */
export async function relayChatStream(options: RelayChatStreamOptions): Promise<void> {
  const { reply, recorder, callId, timing } = options;
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...(callId ? { 'x-tokentap-call-id': callId } : {}) });
  const assembler = new ChatStreamAssembler();
  const upstreamText: string[] = [];
  const end = await pumpEvents(options, assembler, upstreamText);
  const tokens = assembler.tokenRecord();
  const responseStream = upstreamText.join('');
  if (end.kind === 'aborted') {
    recorder.finishQuietly(callId, finishInput({ status: 'aborted', timing, tokens, responseBody: assembler.responseBody(), responseStream, httpStatus: 200 }));
    return;
  }
  if (end.kind === 'error') {
    recorder.finishQuietly(callId, finishInput({
      status: 'backend_error', timing, tokens, responseBody: assembler.responseBody(), responseStream, httpStatus: 200, error: end.error, backendErrorBody: end.backendBody,
    }));
    await writeErrorAndEnd(raw, end.backendBody === undefined ? toOpenAiErrorBody(end.error) : normalizeBackendErrorBody(end.backendBody, end.error.status));
    return;
  }
  try {
    recorder.finish(callId, finishInput({ status: 'ok', timing, tokens, responseBody: assembler.responseBody(), responseStream, httpStatus: 200 }));
  } catch (error) {
    await writeErrorAndEnd(raw, toOpenAiErrorBody(error as TokentapError));
    return;
  }
  if (await writeWithBackpressure(raw, 'data: [DONE]\n\n')) raw.end();
}

async function pumpEvents(options: RelayChatStreamOptions, assembler: ChatStreamAssembler, upstreamText: string[]): Promise<StreamEnd> {
  const decoder = new SseDecoder();
  const text = new TextDecoder();
  try {
    for await (const chunk of options.response.body) {
      if (options.timing.firstTokenAt === null) options.timing.firstTokenAt = Date.now();
      upstreamText.push(text.decode(chunk, { stream: true }));
      for (const event of decoder.push(chunk)) {
        const end = await relayEvent(options, assembler, event.event, event.data);
        if (end !== null) return end;
      }
    }
    for (const event of decoder.flush()) {
      const end = await relayEvent(options, assembler, event.event, event.data);
      if (end !== null) return end;
    }
  } catch (error) {
    if (options.clientGone()) return { kind: 'aborted' };
    return { kind: 'error', error: error instanceof TokentapError ? error : mapBackendFailure(error, { started: true }) };
  }
  if (options.clientGone()) return { kind: 'aborted' };
  // a stream that ended without [DONE] is complete only if the backend said how it finished
  if (assembler.finished) return { kind: 'done' };
  return { kind: 'error', error: new TokentapError('TT_BACKEND_STREAM_CUT') };
}

/** Handles one upstream event; returns how the stream ended, or null to go on. */
async function relayEvent(options: RelayChatStreamOptions, assembler: ChatStreamAssembler, name: string | undefined, data: string): Promise<StreamEnd | null> {
  if (data === '[DONE]') return { kind: 'done' };
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    return { kind: 'error', error: new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `Inference backend sent an SSE event that is not JSON: ${data.slice(0, 200)}` }) };
  }
  if (!isRecord(payload)) {
    return { kind: 'error', error: new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: 'Inference backend sent an SSE event that is not a JSON object' }) };
  }
  if (isBackendErrorPayload(payload)) {
    return { kind: 'error', error: new TokentapError('TT_BACKEND_ERROR', { message: 'Inference backend reported an error mid-stream' }), backendBody: payload };
  }
  assembler.add(payload);
  if (!stripInjectedFields(payload, options.asked, true)) return null;
  const written = await writeWithBackpressure(options.reply.raw, encodeSseEvent({ event: name, data: JSON.stringify(payload) }));
  return written ? null : { kind: 'aborted' };
}

async function writeErrorAndEnd(raw: FastifyReply['raw'], body: unknown): Promise<void> {
  if (await writeWithBackpressure(raw, encodeSseEvent({ data: JSON.stringify(body) }))) raw.end();
}
