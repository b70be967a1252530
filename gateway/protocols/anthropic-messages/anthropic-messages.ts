import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../../gateway-context.js';
import { prepareChatRequest } from '../../backends/vllm-chat-request.js';
import { runChatCall } from '../../calls/run-chat-call.js';
import { toChatRequest } from './anthropic-chat-request.js';
import { countAnthropicTokens } from './anthropic-count-tokens.js';
import { anthropicErrorHandler } from './anthropic-error-handler.js';
import { parseAnthropicBody } from './anthropic-messages-schema.js';
import { createAnthropicMessagesRenderer } from './anthropic-messages-renderer.js';

type RouteParams = { sessionId?: string };

/** The Messages routes' paths, with or without a session in the path (what the router refuses there is answered in Anthropic's shape). */
export const ANTHROPIC_MESSAGES_PATH = /^(?:\/s\/[^/]*)?\/v1\/messages(?:[/?]|$)/;

/**
 * The Anthropic Messages front door: `POST /v1/messages` (Claude Code adds `?beta=true`) and
 * `POST /v1/messages/count_tokens`, both also under `/s/:sessionId` (Claude Code's base URL is
 * `http://HOST/s/SESSION` and it appends `/v1/messages`), each scope with its Anthropic error handler; and a
 * 200 for the `HEAD` probe Claude Code sends to its base URL first (shared/fixtures/harness-captures).
 *
 * @example registerAnthropicFrontDoor(app, context)
 */
export function registerAnthropicFrontDoor(app: FastifyInstance, context: GatewayContext): void {
  for (const prefix of ['/v1/messages', '/s/:sessionId/v1/messages']) {
    void app.register(
      async (scope) => {
        anthropicErrorHandler.setOn(scope);
        registerAnthropicMessages(scope, context);
      },
      { prefix },
    );
  }
  for (const url of ['/', '/s/:sessionId']) app.head(url, async (_request, reply) => reply.code(200).send());
}

/** @example app.register(async (scope) => registerAnthropicMessages(scope, context), { prefix: '/v1/messages' }) */
export function registerAnthropicMessages(app: FastifyInstance, context: GatewayContext): void {
  app.post<{ Params: RouteParams }>('/', (request, reply) => handleMessages(request, reply, context));
  app.post<{ Params: RouteParams }>('/count_tokens', (request, reply) => countAnthropicTokens(request, reply, context));
}

async function handleMessages(request: FastifyRequest<{ Params: RouteParams }>, reply: FastifyReply, context: GatewayContext): Promise<void> {
  const parsed = parseAnthropicBody(request.body, 'messages');
  const { chatBody, metadata } = toChatRequest(parsed);
  // `--model` replaces Claude Code's claude-* names; the harness is answered with the name it asked for
  const { backendBody } = prepareChatRequest(chatBody, { model: context.config.model, topLogprobs: context.config.topLogprobs });
  await runChatCall({
    request,
    reply,
    context,
    frontDoor: 'anthropic-messages',
    requestBody: request.body as Record<string, unknown>,
    backendBody,
    stream: parsed.stream === true,
    metadata,
    renderer: createAnthropicMessagesRenderer({ model: parsed.model ?? null, stopSequences: parsed.stop_sequences ?? [] }),
  });
}
