import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import type { BackendResponse } from '../backends/vllm.js';
import type { ReplicaLease } from '../backends/fleet/fleet-types.js';
import { UNKNOWN_CAPABILITIES } from '../backends/fleet/fleet-replica.js';
import { pickSamplingParams } from '../backends/vllm-chat-request.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import { postWithRetries, type FleetAnswer } from '../backends/post-with-retries.js';
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
import { callBackend, type CallScope } from './call-scope.js';
import { prepareAttempt, type AttemptSource, type ChatAttempt } from './prepare-attempt.js';
import { STREAM_FROM_WHOLE_BODY_KEY } from '../backends/sglang/adapt-call.js';
import { streamFromWholeBody } from '../backends/sglang/stream-from-whole-body.js';
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
  const backendModel = typeof options.backendBody.model === 'string' ? options.backendBody.model : null;
  // a call no session was named for (recorded in `default`) is no session's prefix: it goes to the least busy replica
  const affinity = source === 'default' ? null : sessionId;
  // token-faithful mode sends a chat call as a token-id prompt it rendered (docs/token-faithful.md)
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
  // a call that should have gone token-faithfully and went plain (docs/token-faithful.md, "Fallback"): counted, flagged
  if (faithful?.fallback !== undefined) context.metrics.tokenFaithfulFellBack(faithful.fallback);
  const attemptSource: AttemptSource = {
    path: options.backendPath ?? '/v1/chat/completions',
    body: options.backendBody,
    stream: options.stream,
    renderer: options.renderer,
    createAssembler: options.createAssembler,
    faithfulRoutes: faithful?.routes,
  };
  // the first replica is picked before the call is recorded, so the row holds the request that replica is sent
  let first: { lease: ReplicaLease; prepared: ChatAttempt } | undefined;
  let pickFailure: unknown = null;
  try {
    const lease = context.fleet.pick({ model: backendModel, sessionId: affinity, exclude: new Set() });
    first = { lease, prepared: prepareAttempt(attemptSource, lease) };
  } catch (error) {
    pickFailure = error;
  }
  // a call whose model no pool serves is recorded as sent to a replica nothing is known of (it was sent nowhere)
  const sent = first?.prepared ?? prepareAttempt(attemptSource, { flavour: 'vllm', capabilities: UNKNOWN_CAPABILITIES });
  context.recorder.begin({
    callId,
    sessionId,
    frontDoor: options.frontDoor,
    path: request.url.split('?')[0] ?? request.url,
    requestedModel,
    backendModel,
    stream: options.stream,
    requestBody: options.requestBody,
    backendRequestBody: sent.body,
    // the backend got a token-id prompt: keep the conversation it was rendered from (text exports, drift reading)
    ...(faithful?.route ? { chatRequestBody: options.backendBody } : {}),
    // in vLLM's names whichever flavour serves it: SGLang's /generate nests them under sampling_params (max_new_tokens)
    samplingParams: pickSamplingParams(faithful?.route?.backendBody ?? sent.body),
    metadata: {
      ...harnessMetadata(request.headers),
      ...options.metadata,
      ...faithful?.metadata,
      sessionSource: source,
      ...samplingMetadata(admission),
      ...(sent.wholeBodyAsStream ? { [STREAM_FROM_WHOLE_BODY_KEY]: true } : {}),
    },
    startedAt: timing.startedAt,
    policyVersion: admission.policyVersion,
    instanceId: context.instanceId,
    backendId: first?.lease.id ?? null,
  });
  // from here the call ends in its own log line (log-call-ends.ts); the request's other lines carry its id
  markCallRequest(request, callId);
  const scope: CallScope = {
    context,
    createAssembler: sent.createAssembler,
    callId,
    timing,
    clientGone: () => controller.signal.aborted,
    backendRetries: [],
    policyVersion: admission.policyVersion,
    backendId: first?.lease.id ?? null,
    failureCode: null,
    tokenFaithfulFallback: faithful?.fallback !== undefined,
  };
  if (pickFailure !== null) throw await recordFailure(scope, asTokentapError(pickFailure), { httpStatus: null, status: 'backend_error' });
  let answer: FleetAnswer<ChatAttempt>;
  try {
    // sent again only here, before the answer starts (to another replica, or after a backoff): once a byte went to
    // the harness a failure is final
    answer = await postWithRetries({
      fleet: context.fleet,
      model: backendModel,
      sessionId: affinity,
      first,
      prepare: (lease) => prepareAttempt(attemptSource, lease),
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
  const { lease, prepared } = answer;
  scope.backendId = lease.id;
  scope.createAssembler = prepared.createAssembler;
  // a failover to a replica of the other flavour sent another request than the one recorded at begin: keep what was sent
  if (first !== undefined && (prepared.path !== first.prepared.path || prepared.wholeBodyAsStream !== first.prepared.wholeBodyAsStream)) {
    scope.endMetadata = {
      servedRequest: { backendId: lease.id, path: prepared.path, body: prepared.body },
      [STREAM_FROM_WHOLE_BODY_KEY]: prepared.wholeBodyAsStream,
    };
  }
  try {
    await relayAnswer(reply, answer.response, scope, prepared, options.stream);
  } finally {
    lease.release(scope.failureCode === null || scope.failureCode === 'TT_CLIENT_ABORTED' ? { ok: true } : { ok: false, code: scope.failureCode });
  }
}

/** Relays the backend's answer: its error, its stream, or its whole body (as a stream when the harness asked for one). */
async function relayAnswer(reply: FastifyReply, answered: BackendResponse, scope: CallScope, prepared: ChatAttempt, stream: boolean): Promise<void> {
  if (answered.statusCode >= 400) return relayBackendError(reply, answered, scope);
  let response = answered;
  if (stream && prepared.wholeBodyAsStream) {
    try {
      response = await streamFromWholeBody(answered);
    } catch (error) {
      throw await recordFailure(scope, mapBackendFailure(error, { started: true, clientGone: scope.clientGone() }), {
        httpStatus: answered.statusCode,
      });
    }
  }
  if (stream && String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
    return relayChatStream({ reply, response, scope, renderer: prepared.renderer });
  }
  await relayChatBody(reply, response, scope, prepared.renderer);
}

/** A failure from outside the backend pipeline (the fleet's pick) as the error to record and answer. */
function asTokentapError(error: unknown): TokentapError {
  return error instanceof TokentapError ? error : new TokentapError('TT_BACKEND_UNAVAILABLE', { cause: error });
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
  scope.failureCode = failure.code;
  await scope.context.recorder.finishQuietly(
    scope.callId,
    finishInput({
      status,
      timing: scope.timing,
      httpStatus: details.httpStatus,
      error: failure,
      backendErrorBody: details.backendErrorBody,
      retries: scope.backendRetries,
      ...callBackend(scope),
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
  const withoutChoices = (): TokentapError =>
    new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `Inference backend sent a body without choices: ${body.text.slice(0, 200)}` });
  if (!isRecord(body.json)) {
    throw await recordFailure(scope, withoutChoices(), { httpStatus: response.statusCode, backendErrorBody: body.text, status: 'backend_error' });
  }
  // the assembler reads the body first: a native answer (SGLang's /generate) becomes the chat shape there
  const assembler = scope.createAssembler();
  try {
    assembler.addBody(body.json);
  } catch (error) {
    const failure = error instanceof TokentapError ? error : new TokentapError('TT_BACKEND_BAD_RESPONSE', { cause: error });
    throw await recordFailure(scope, failure, { httpStatus: response.statusCode, backendErrorBody: body.text, status: 'backend_error' });
  }
  if (!Array.isArray(body.json.choices)) {
    throw await recordFailure(scope, withoutChoices(), { httpStatus: response.statusCode, backendErrorBody: body.text, status: 'backend_error' });
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
      ...callBackend(scope),
    }),
  );
  const rendered = renderer.renderBody(body.json);
  reply.header('x-tokentap-call-id', scope.callId);
  await reply.code(200).send(rendered);
}
