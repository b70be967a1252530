import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../gateway-context.js';
import { prepareChatRequest, pickSamplingParams } from '../backends/vllm-chat-request.js';
import { readChatCompletionTokens } from '../backends/chat-stream-assembler.js';
import { stripInjectedFields } from '../backends/vllm-chat-response.js';
import { readBackendBody } from '../backends/read-backend-body.js';
import type { BackendResponse } from '../backends/vllm.js';
import { TokentapError } from '../errors/tokentap-error.js';
import { mapBackendFailure } from '../errors/map-backend-failure.js';
import { isRecord } from '../json/is-record.js';
import { harnessMetadata, resolveSession } from '../sessions/resolve-session.js';
import { finishInput, type CallTiming } from '../recorder/finish-inputs.js';
import { relayChatStream } from '../streams/relay-chat-stream.js';
import { normalizeBackendErrorBody } from './openai-error-body.js';

/**
 * Only what tokentap reads is validated; every other field passes through untouched (a loose object).
 * `n > 1` is refused: one call records one sampled sequence.
 */
const chatBodySchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  stream: z.boolean().nullish(),
  n: z.literal(1).nullish(),
  return_token_ids: z.boolean().nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

type RouteParams = { sessionId?: string };

/** @example app.register(async (scope) => registerOpenAiChat(scope, context), { prefix: '/v1' }) */
export function registerOpenAiChat(app: FastifyInstance, context: GatewayContext): void {
  app.post<{ Params: RouteParams }>('/chat/completions', (request, reply) => handleChat(request, reply, context));
}

export function parseChatBody(body: unknown): Record<string, unknown> {
  const parsed = chatBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') ?? null;
    throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid chat completion request: ${z.prettifyError(parsed.error)}`, param });
  }
  return parsed.data as Record<string, unknown>;
}

async function handleChat(request: FastifyRequest<{ Params: RouteParams }>, reply: FastifyReply, context: GatewayContext): Promise<void> {
  const body = parseChatBody(request.body);
  const { sessionId, source } = resolveSession(request.params.sessionId, request.headers);
  const { backendBody, asked } = prepareChatRequest(body, { model: context.config.model, topLogprobs: context.config.topLogprobs });
  const timing: CallTiming = { startedAt: Date.now(), firstTokenAt: null };
  const callId = context.recorder.begin({
    sessionId,
    frontDoor: 'openai-chat',
    path: request.url.split('?')[0] ?? request.url,
    requestedModel: typeof body.model === 'string' ? body.model : null,
    backendModel: typeof backendBody.model === 'string' ? backendBody.model : null,
    stream: body.stream === true,
    requestBody: body,
    backendRequestBody: backendBody,
    samplingParams: pickSamplingParams(backendBody),
    metadata: { ...harnessMetadata(request.headers), sessionSource: source },
    startedAt: timing.startedAt,
  });
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const clientGone = (): boolean => controller.signal.aborted;
  let response: BackendResponse;
  try {
    response = await context.backend.postJson('/v1/chat/completions', backendBody, controller.signal);
  } catch (error) {
    const status = clientGone() ? 'aborted' : 'backend_error';
    const failure = mapBackendFailure(error, { started: false });
    context.recorder.finishQuietly(callId, finishInput({ status, timing, httpStatus: null, error: failure }));
    throw failure;
  }
  if (response.statusCode >= 400) return relayBackendError(reply, response, { context, callId, timing, clientGone });
  if (body.stream === true && String(response.headers['content-type'] ?? '').includes('text/event-stream')) {
    return relayChatStream({ reply, response, asked, callId, recorder: context.recorder, timing, clientGone });
  }
  await relayChatBody(reply, response, { context, callId, timing, clientGone, asked });
}

interface CallScope {
  context: GatewayContext;
  callId: string | null;
  timing: CallTiming;
  clientGone: () => boolean;
}

async function relayBackendError(reply: FastifyReply, response: BackendResponse, scope: CallScope): Promise<never> {
  const { text, json } = await readBackendBody(response);
  // a backend's back-off hint reaches the harness: OpenAI clients honour Retry-After when they retry
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter === 'string') reply.header('retry-after', retryAfter);
  const backendBody = json ?? text;
  const normalized = normalizeBackendErrorBody(backendBody, response.statusCode);
  const error = new TokentapError('TT_BACKEND_ERROR', { status: response.statusCode, message: normalized.error.message, cause: normalized });
  scope.context.recorder.finishQuietly(scope.callId, finishInput({
    status: scope.clientGone() ? 'aborted' : 'backend_error', timing: scope.timing, httpStatus: response.statusCode, error, backendErrorBody: backendBody,
  }));
  throw error;
}

async function relayChatBody(
  reply: FastifyReply,
  response: BackendResponse,
  scope: CallScope & { asked: ReturnType<typeof prepareChatRequest>['asked'] },
): Promise<void> {
  let body: { text: string; json: unknown };
  try {
    body = await readBackendBody(response);
  } catch (error) {
    const failure = mapBackendFailure(error, { started: true });
    scope.context.recorder.finishQuietly(scope.callId, finishInput({ status: scope.clientGone() ? 'aborted' : 'backend_error', timing: scope.timing, httpStatus: response.statusCode, error: failure }));
    throw failure;
  }
  scope.timing.firstTokenAt = response.headersAt;
  if (!isRecord(body.json) || !Array.isArray(body.json.choices)) {
    const failure = new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `Inference backend sent a body that is not a chat completion: ${body.text.slice(0, 200)}` });
    scope.context.recorder.finishQuietly(scope.callId, finishInput({ status: 'backend_error', timing: scope.timing, httpStatus: response.statusCode, error: failure, backendErrorBody: body.text }));
    throw failure;
  }
  const tokens = readChatCompletionTokens(body.json);
  const status = scope.clientGone() ? 'aborted' : 'ok';
  // commit before the harness gets the answer: a response it received is always in the store
  // (the store serializes the body synchronously, before it is stripped below)
  scope.context.recorder.finish(scope.callId, finishInput({ status, timing: scope.timing, tokens, responseBody: body.json, httpStatus: response.statusCode }));
  stripInjectedFields(body.json, scope.asked, false);
  if (scope.callId !== null) reply.header('x-tokentap-call-id', scope.callId);
  await reply.code(response.statusCode).send(body.json);
}
