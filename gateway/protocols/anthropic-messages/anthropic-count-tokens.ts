import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../../gateway-context.js';
import { readBackendBody } from '../../backends/read-backend-body.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { isRecord } from '../../../core/json/is-record.js';
import { toChatRequest } from './anthropic-chat-request.js';
import { parseAnthropicBody } from './anthropic-messages-schema.js';
import { normalizeBackendErrorBody } from '../../errors/openai-error-body.js';

/** The fields of the translated chat request that decide the rendered prompt (vLLM's TokenizeChatRequest). */
const PROMPT_FIELDS = ['messages', 'tools', 'chat_template_kwargs', 'add_generation_prompt', 'continue_final_message'] as const;

/**
 * `POST /v1/messages/count_tokens`: the request is translated exactly as for /v1/messages and rendered by the
 * backend's own tokenizer and chat template through vLLM's `POST /tokenize` (`{model, messages, tools,
 * add_generation_prompt: true, ...}` -> `{count, tokens}`), so the count is the prompt the backend would see.
 * Nothing is recorded: no tokens are sampled. A backend without /tokenize answers 404, which Claude Code treats
 * as "no token counting" and estimates locally.
 *
 * @example app.post('/count_tokens', (request, reply) => countAnthropicTokens(request, reply, context))
 */
export async function countAnthropicTokens(request: FastifyRequest, reply: FastifyReply, context: GatewayContext): Promise<void> {
  const { chatBody } = toChatRequest(parseAnthropicBody(request.body, 'count_tokens'));
  const tokenizeBody: Record<string, unknown> = { model: context.config.model ?? chatBody.model, add_generation_prompt: true };
  for (const field of PROMPT_FIELDS) if (chatBody[field] !== undefined) tokenizeBody[field] = chatBody[field];
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const response = await context.backend.postJson('/tokenize', tokenizeBody, controller.signal);
  const { text, json } = await readBackendBody(response);
  if (response.statusCode >= 400) {
    const normalized = normalizeBackendErrorBody(json ?? text, response.statusCode);
    throw new TokentapError('TT_BACKEND_ERROR', { status: response.statusCode, message: normalized.error.message, body: normalized });
  }
  if (!isRecord(json) || typeof json.count !== 'number') {
    throw new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `Inference backend's /tokenize sent no count: ${text.slice(0, 200)}` });
  }
  await reply.code(200).send({ input_tokens: json.count });
}
