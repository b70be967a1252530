import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../../gateway-context.js';
import { prepareChatRequest } from '../../backends/vllm-chat-request.js';
import { runChatCall } from '../../calls/run-chat-call.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { createOpenAiChatRenderer } from './openai-chat-renderer.js';

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

/** Validates a Chat Completions body; throws TT_INVALID_REQUEST naming the first bad field. */
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
  const requestBody = parseChatBody(request.body);
  const { backendBody, asked } = prepareChatRequest(requestBody, { model: context.config.model, topLogprobs: context.config.topLogprobs });
  await runChatCall({
    request,
    reply,
    context,
    frontDoor: 'openai-chat',
    requestBody,
    backendBody,
    stream: requestBody.stream === true,
    renderer: createOpenAiChatRenderer(asked),
  });
}
