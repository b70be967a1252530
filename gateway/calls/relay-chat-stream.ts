import type { FastifyReply } from 'fastify';
import type { BackendResponse } from '../backends/vllm.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import type { ChatTokenRecord } from '../backends/chat-token-record.js';
import { isBackendErrorPayload } from '../backends/vllm-chat-response.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { mapBackendFailure } from '../errors/map-backend-failure.js';
import { isRecord } from '../../core/json/is-record.js';
import { SseDecoder } from '../../core/sse/sse-decoder.js';
import { finishInput } from '../recorder/finish-inputs.js';
import type { ChatCallRenderer } from '../backends/chat-call-renderer.js';
import { callBackend, type CallScope } from './call-scope.js';
import { writeWithBackpressure } from '../http/write-with-backpressure.js';

export interface RelayChatStreamOptions {
  reply: FastifyReply;
  response: BackendResponse;
  scope: CallScope;
  renderer: ChatCallRenderer;
}

/** How the upstream stream ended, before recording. */
type StreamEnd = { kind: 'done' } | { kind: 'error'; error: TokentapError; backendBody?: unknown } | { kind: 'aborted' };

/**
 * Relays a vLLM chat stream to the harness event by event, as it arrives: each event is decoded, read for
 * tokens, handed to the front door's renderer, and written (waiting for the harness to drain). The call is
 * committed to the store before the stream's last event is written, so a finished stream is always stored.
 *
 * @example await relayChatStream({ reply, response, scope, renderer })
 */
export async function relayChatStream(options: RelayChatStreamOptions): Promise<void> {
  const { reply, scope, renderer } = options;
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, { ...renderer.streamHeaders(), 'cache-control': 'no-cache', 'x-tokentap-call-id': scope.callId });
  const assembler = scope.createAssembler();
  const upstreamText: string[] = [];
  const end = await pumpEvents(options, assembler, upstreamText);
  releaseBody(options.response.body, end);
  const recorded = {
    timing: scope.timing,
    tokens: streamTokens(assembler, end),
    responseBody: assembler.responseBody(),
    responseStream: upstreamText.join(''),
    httpStatus: 200,
    retries: scope.backendRetries,
    ...callBackend(scope),
  };
  if (end.kind === 'aborted') {
    await scope.context.recorder.finishQuietly(
      scope.callId,
      finishInput({ status: 'aborted', ...recorded, error: new TokentapError('TT_CLIENT_ABORTED') }),
    );
    return;
  }
  if (end.kind === 'error') {
    scope.failureCode = end.error.code;
    await scope.context.recorder.finishQuietly(
      scope.callId,
      finishInput({ status: 'backend_error', ...recorded, error: end.error, backendErrorBody: end.backendBody }),
    );
    await writeAndEnd(raw, renderer.renderStreamError(end.error, end.backendBody));
    return;
  }
  try {
    await scope.context.recorder.finish(scope.callId, finishInput({ status: 'ok', ...recorded }));
  } catch (error) {
    await writeAndEnd(raw, renderer.renderStreamError(error as TokentapError, undefined));
    return;
  }
  await writeAndEnd(raw, renderer.renderStreamEnd(assembler));
}

/**
 * The stream's token record. vLLM names a `finish_reason` on the last chunk of every generation; a stream that ended
 * with `[DONE]` before any chunk did is relayed as sent, but its call is flagged `finish_reason_missing`: whether
 * the completion is whole is unknown (issue 12).
 */
function streamTokens(assembler: StreamAssembler, end: StreamEnd): ChatTokenRecord {
  const tokens = assembler.tokenRecord();
  if (end.kind !== 'done' || assembler.finished) return tokens;
  return { ...tokens, flags: [...tokens.flags, 'finish_reason_missing'] };
}

async function pumpEvents(options: RelayChatStreamOptions, assembler: StreamAssembler, upstreamText: string[]): Promise<StreamEnd> {
  const { scope } = options;
  const decoder = new SseDecoder();
  const text = new TextDecoder();
  // returning early from a plain `for await` destroys the body with an AbortError (a stack trace per call, even
  // after [DONE]); releaseBody decides instead once the end is known
  const chunks = options.response.body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
  try {
    for await (const chunk of chunks) {
      if (scope.timing.firstTokenAt === null) scope.timing.firstTokenAt = Date.now();
      // decoded once, for the record and for the SSE decoder
      const decoded = text.decode(chunk, { stream: true });
      upstreamText.push(decoded);
      for (const event of decoder.push(decoded)) {
        const end = await relayEvent(options, assembler, event.data);
        if (end !== null) return end;
      }
    }
    // bytes of a character cut at the very end reach the decoder (as U+FFFD), not the recorded text, as before
    decoder.push(text.decode());
    for (const event of decoder.flush()) {
      const end = await relayEvent(options, assembler, event.data);
      if (end !== null) return end;
    }
  } catch (error) {
    if (scope.clientGone()) return { kind: 'aborted' };
    return { kind: 'error', error: error instanceof TokentapError ? error : mapBackendFailure(error, { started: true }) };
  }
  if (scope.clientGone()) return { kind: 'aborted' };
  // a stream that ended without [DONE] is complete only if the backend said how it finished
  if (assembler.finished) return { kind: 'done' };
  return { kind: 'error', error: new TokentapError('TT_BACKEND_STREAM_CUT') };
}

/** Handles one upstream event; returns how the stream ended, or null to go on. */
async function relayEvent(options: RelayChatStreamOptions, assembler: StreamAssembler, data: string): Promise<StreamEnd | null> {
  if (data === '[DONE]') return { kind: 'done' };
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    return {
      kind: 'error',
      error: new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `Inference backend sent an SSE event that is not JSON: ${data.slice(0, 200)}` }),
    };
  }
  if (!isRecord(payload)) {
    return {
      kind: 'error',
      error: new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: 'Inference backend sent an SSE event that is not a JSON object' }),
    };
  }
  if (isBackendErrorPayload(payload)) {
    return {
      kind: 'error',
      error: new TokentapError('TT_BACKEND_ERROR', { message: 'Inference backend reported an error mid-stream' }),
      backendBody: payload,
    };
  }
  assembler.add(payload);
  const text = options.renderer.renderChunk(payload, assembler);
  if (text === '') return null;
  return (await writeWithBackpressure(options.reply.raw, text)) ? null : { kind: 'aborted' };
}

/**
 * After [DONE] the rest of the body (normally nothing) is read and dropped, so the connection returns to the pool;
 * any other end destroys it, which cancels the backend request (GPU time is money).
 */
function releaseBody(body: BackendResponse['body'], end: StreamEnd): void {
  // the iterator no longer listens: the abort error a destroy raises, or a socket failing after [DONE], is expected
  body.on('error', () => undefined);
  if (end.kind === 'done') body.resume();
  else body.destroy();
}

async function writeAndEnd(raw: FastifyReply['raw'], text: string): Promise<void> {
  if (text === '' || (await writeWithBackpressure(raw, text))) raw.end();
}
