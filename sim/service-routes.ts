import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { renderChatPrompt, chatSettings } from './chat-prompt.js';
import { chatRequestSchema } from './read-generation-request.js';
import { checkModel } from './request-basics.js';
import type { SimContext } from './sim-context.js';
import { VllmError } from './vllm-error.js';

const tokenizePromptSchema = z.looseObject({
  model: z.string().nullish(),
  prompt: z.string(),
  add_special_tokens: z.boolean().nullish(),
  return_token_strs: z.boolean().nullish(),
});
const tokenizeChatSchema = chatRequestSchema.extend({ return_token_strs: z.boolean().nullish() });

const detokenizeSchema = z.looseObject({ model: z.string().nullish(), tokens: z.array(z.number().int().min(0)) });

/**
 * vLLM's service endpoints: `POST /tokenize` (a prompt, or chat messages rendered through the template),
 * `POST /detokenize`, `GET /v1/models`, `GET /health`, `GET /version`.
 *
 * @example
 * registerServiceRoutes(app, context);
 */
export function registerServiceRoutes(app: FastifyInstance, context: SimContext): void {
  app.post('/tokenize', async (request) => {
    const tokenizer = await context.tokenizer();
    let tokens: number[];
    let body: { model?: string | null; return_token_strs?: boolean | null };
    if (Array.isArray((request.body as { messages?: unknown } | null)?.messages)) {
      const chat = parseBody(tokenizeChatSchema, request.body);
      checkModel(context, chat.model);
      [body, tokens] = [chat, renderChatPrompt(tokenizer, chat, chatSettings(chat)).tokenIds];
    } else {
      const plain = parseBody(tokenizePromptSchema, request.body);
      checkModel(context, plain.model);
      [body, tokens] = [plain, tokenizer.encode(plain.prompt)];
    }
    return {
      count: tokens.length,
      max_model_len: context.maxModelLen,
      tokens,
      token_strs: body.return_token_strs === true ? tokens.map((id) => tokenizer.idToToken(id) ?? '') : null,
    };
  });
  app.post('/detokenize', async (request) => {
    const body = parseBody(detokenizeSchema, request.body);
    checkModel(context, body.model);
    return { prompt: (await context.tokenizer()).decode(body.tokens) };
  });
  app.get('/v1/models', async () => ({ object: 'list', data: [modelCard(context)] }));
  app.get('/health', async (_request, reply) => reply.code(200).send());
  app.get('/version', async () => ({ version: context.serverVersion }));
}

function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new VllmError(400, `${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid request'}`);
}

// vLLM's ModelCard / ModelPermission, field for field
function modelCard(context: SimContext): Record<string, unknown> {
  const created = Math.floor(Date.now() / 1000);
  return {
    id: context.modelName,
    object: 'model',
    created,
    owned_by: 'vllm',
    root: context.modelName,
    parent: null,
    max_model_len: context.maxModelLen,
    permission: [
      {
        id: `modelperm-${randomBytes(16).toString('hex')}`,
        object: 'model_permission',
        created,
        allow_create_engine: false,
        allow_sampling: true,
        allow_logprobs: true,
        allow_search_indices: false,
        allow_view: true,
        allow_fine_tuning: false,
        organization: '*',
        group: null,
        is_blocking: false,
      },
    ],
  };
}
