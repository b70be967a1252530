import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import type { BackendResponse } from '../backends/vllm.js';
import { pickSamplingParams } from '../backends/vllm-chat-request.js';
import { ChatStreamAssembler } from '../backends/chat-stream-assembler.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import { postWithRetries } from '../backends/post-with-retries.js';
import { retryPolicyFromConfig } from '../backends/retry-policy.js';
import { readBackendBody, readBackendBodySettled } from '../backends/read-backend-body.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { mapBackendFailure } from '../errors/map-backend-failure.js';
import { isRecord } from '../../core/json/is-record.js';
import { normalizeBackendErrorBody } from '../errors/openai-error-body.js';
import { harnessMetadata } from '../sessions/resolve-session.js';
import { admitCall, withSamplingOverrides, type CallAdmission } from '../rollouts/admit-call.js';
import { finishInput, type CallTiming } from '../recorder/finish-inputs.js';
import type { ChatCallRenderer } from '../backends/chat-call-renderer.js';
import { relayChatStream } from './relay-chat-stream.js';
import type { CallScope } from './call-scope.js';
import { markCallRequest } from '../errors/mark-call-request.js';

export interface ChatCallOptions {
  request: FastifyRequest<{ Params: { sessionId?: string } }>;
  reply: FastifyReply;
  context: GatewayContext;
  /** 'openai-chat' | 'anthropic-messages' | 'openai-responses' ... */
  frontDoor: string;
  /** the harness's body as received */
  requestBody: Record<string, unknown>;
  /** the vLLM chat request built from it (tokentap's injections included) */
  backendBody: Record<string, unknown>;
  stream: boolean;
  renderer: ChatCallRenderer;
  /** extra call metadata from the front door (dropped tools, protocol version ...) */
  metadata?: Record<string, unknown>;
  /** the backend endpoint; default `/v1/chat/completions` */
  backendPath?: string;
  /** reads that endpoint's bodies and stream payloads; default a chat assembler */
  createAssembler?: () => StreamAssembler;
}

/**
 * One recorded chat call, whatever the front door: attribute the session, record the call as in progress, ask
 * the backend (cancelled when the harness leaves), then relay the answer through the front door's renderer and
 * commit the call before its last byte. Failures before the answer starts are thrown, recorded, for the front
 * door's error handler to word in its protocol.
 *
 * @example await runChatCall({ request, reply, context, frontDoor: 'openai-chat', requestBody, backendBody, stream, renderer })
 */
export async function runChatCall(options: ChatCallOptions): Promise<void> {
  const { request, reply, context } = options;
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  // the session (key, path, headers), then the pause gate: a call held by a pause is not recorded until admitted
  const admission = await admitCall(request, reply, context.rollouts, context.config, controller.signal);
  if (admission === null) return; // the harness left while held: nothing was recorded, nobody to answer
  try {
    await recordChatCall({ ...options, backendBody: withSamplingOverrides(options.backendBody, admission.sampling) }, admission, controller);
  } finally {
    admission.release();
  }
}

async function recordChatCall(options: ChatCallOptions, admission: CallAdmission, controller: AbortController): Promise<void> {
  const { request, reply, context } = options;
  const { sessionId, source, callId } = admission;
  const timing: CallTiming = { startedAt: Date.now(), firstTokenAt: null };
  const requestedModel = typeof options.requestBody.model === 'string' ? options.requestBody.model : null;
  // token-faithful mode sends a chat call to /v1/completions with prompt ids it rendered (docs/token-faithful.md)
  const faithful =
    options.backendPath === undefined
      ? await context.tokenFaithful?.prepare({
          sessionId,
          callId,
          requestedModel,
          chatBody: options.backendBody,
          renderer: options.renderer,
          signal: controller.signal,
        })
      : undefined;
  const call: ChatCallOptions = faithful?.route ? { ...options, ...faithful.route } : options;
  const { backendBody } = call;
  context.recorder.begin({
    callId,
    sessionId,
    frontDoor: options.frontDoor,
    path: request.url.split('?')[0] ?? request.url,
    requestedModel,
    backendModel: typeof backendBody.model === 'string' ? backendBody.model : null,
    stream: options.stream,
    requestBody: options.requestBody,
    backendRequestBody: backendBody,
    // the backend got a token-id prompt: keep the conversation it was rendered from (text exports, drift reading)
    ...(faithful?.route ? { chatRequestBody: options.backendBody } : {}),
    samplingParams: pickSamplingParams(backendBody),
    metadata: {
      ...harnessMetadata(request.headers),
      ...options.metadata,
      ...faithful?.metadata,
      sessionSource: source,
      ...samplingMetadata(admission),
    },
    startedAt: timing.startedAt,
    policyVersion: admission.policyVersion,
    instanceId: context.instanceId,
  });
  // from here the call ends in its own log line (log-call-ends.ts); the request's other lines carry its id
  markCallRequest(request, callId);
  const createAssembler = call.createAssembler ?? ((): StreamAssembler => new ChatStreamAssembler());
  const scope: CallScope = { context, createAssembler, callId, timing, clientGone: () => controller.signal.aborted, backendRetries: [] };
  let response: BackendResponse;
  try {
    // retried only here, before the answer starts: once a byte went to the harness a failure is final
    response = await postWithRetries({
      backend: context.backend,
      path: call.backendPath ?? '/v1/chat/completions',
      body: backendBody,
      signal: controller.signal,
      policy: retryPolicyFromConfig(context.config),
      onRetry: (retry) => {
        scope.backendRetries.push(retry);
        context.metrics.backendRetried(retry);
      },
    });
  } catch (error) {
    throw await recordFailure(scope, mapBackendFailure(error, { started: false, clientGone: scope.clientGone() }), { httpStatus: null });
  }
  if (response.statusCode >= 400) return relayBackendError(reply, response, scope);
  if (options.stream && String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
    return relayChatStream({ reply, response, scope, renderer: call.renderer });
  }
  await relayChatBody(reply, response, scope, call.renderer);
}

/**
 * Records a call that failed before its answer reached the harness (as `aborted` when the harness had already
 * left, unless the failure is the backend's alone) and returns the error for the front door to word.
 */
async function recordFailure(
  scope: CallScope,
  failure: TokentapError,
  details: { httpStatus: number | null; backendErrorBody?: unknown; status?: 'backend_error' },
): Promise<TokentapError> {
  const status = details.status ?? (scope.clientGone() ? 'aborted' : 'backend_error');
  await scope.context.recorder.finishQuietly(
    scope.callId,
    finishInput({
      status,
      timing: scope.timing,
      httpStatus: details.httpStatus,
      error: failure,
      backendErrorBody: details.backendErrorBody,
      retries: scope.backendRetries,
    }),
  );
  return failure;
}

/** The session's forced sampling parameters, recorded with each call they changed. */
function samplingMetadata(admission: CallAdmission): Record<string, unknown> {
  return Object.keys(admission.sampling).length === 0 ? {} : { samplingOverrides: admission.sampling };
}

async function relayBackendError(reply: FastifyReply, response: BackendResponse, scope: CallScope): Promise<never> {
  const read = await readBackendBodySettled(response);
  // an error body cut mid-way, or a harness gone while it is read, still ends the call, with the bytes that came
  // (issue 12: the read threw past the recording and the row stayed in_progress)
  if ('failure' in read) {
    const failure = mapBackendFailure(read.failure, { started: true, clientGone: scope.clientGone() });
    throw await recordFailure(scope, failure, { httpStatus: response.statusCode, backendErrorBody: read.text });
  }
  const backendBody = read.json ?? read.text;
  const normalized = normalizeBackendErrorBody(backendBody, response.statusCode);
  // a backend's back-off hint reaches the harness: OpenAI and Anthropic clients honour Retry-After
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter === 'string') reply.header('retry-after', retryAfter);
  const error = new TokentapError('TT_BACKEND_ERROR', {
    status: response.statusCode,
    message: normalized.error.message,
    param: normalized.error.param,
    body: normalized,
  });
  throw await recordFailure(scope, error, { httpStatus: response.statusCode, backendErrorBody: backendBody });
}

async function relayChatBody(reply: FastifyReply, response: BackendResponse, scope: CallScope, renderer: ChatCallRenderer): Promise<void> {
  let body: { text: string; json: unknown };
  try {
    body = await readBackendBody(response);
  } catch (error) {
    throw await recordFailure(scope, mapBackendFailure(error, { started: true, clientGone: scope.clientGone() }), {
      httpStatus: response.statusCode,
    });
  }
  scope.timing.firstTokenAt = response.headersAt;
  if (!isRecord(body.json) || !Array.isArray(body.json.choices)) {
    const failure = new TokentapError('TT_BACKEND_BAD_RESPONSE', {
      message: `Inference backend sent a body without choices: ${body.text.slice(0, 200)}`,
    });
    throw await recordFailure(scope, failure, { httpStatus: response.statusCode, backendErrorBody: body.text, status: 'backend_error' });
  }
  const assembler = scope.createAssembler();
  try {
    assembler.addBody(body.json);
  } catch (error) {
    const failure = error instanceof TokentapError ? error : new TokentapError('TT_BACKEND_BAD_RESPONSE', { cause: error });
    throw await recordFailure(scope, failure, { httpStatus: response.statusCode, backendErrorBody: body.text, status: 'backend_error' });
  }
  const tokens = assembler.tokenRecord();
  // commit before the harness gets the answer: a response it received is always in the store
  // (finish resolves once the body was handed over and committed, so the renderer may then change it)
  const aborted = scope.clientGone() ? { status: 'aborted' as const, error: new TokentapError('TT_CLIENT_ABORTED') } : { status: 'ok' as const };
  await scope.context.recorder.finish(
    scope.callId,
    finishInput({
      ...aborted,
      timing: scope.timing,
      tokens,
      responseBody: body.json,
      httpStatus: response.statusCode,
      retries: scope.backendRetries,
    }),
  );
  const rendered = renderer.renderBody(body.json);
  reply.header('x-tokentap-call-id', scope.callId);
  await reply.code(200).send(rendered);
}
