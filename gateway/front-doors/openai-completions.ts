import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../gateway-context.js';
import { CompletionStreamAssembler } from '../backends/completion-stream-assembler.js';
import { prepareCompletionRequest } from '../backends/vllm-completion-request.js';
import { runChatCall } from '../calls/run-chat-call.js';
import { TokentapError } from '../errors/tokentap-error.js';
import { createOpenAiCompletionsRenderer } from './openai-completions-renderer.js';

/**
 * Only what tokentap reads is validated; every other field passes through untouched (a loose object).
 * `prompt` is a string or a list of token ids (vLLM also takes lists of prompts, refused below).
 */
const completionsBodySchema = z.looseObject({
  model: z.string().optional(),
  prompt: z.union([z.string(), z.array(z.number().int().min(0)), z.array(z.string()), z.array(z.array(z.number().int().min(0)))]),
  stream: z.boolean().nullish(),
  n: z.number().int().nullish(),
  best_of: z.number().int().nullish(),
  echo: z.boolean().nullish(),
  logprobs: z.number().int().min(-1).nullish(),
  return_token_ids: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

type RouteParams = { sessionId?: string };

/** @example app.register(async (scope) => registerOpenAiCompletions(scope, context), { prefix: '/v1' }) */
export function registerOpenAiCompletions(app: FastifyInstance, context: GatewayContext): void {
  app.post<{ Params: RouteParams }>('/completions', (request, reply) => handleCompletions(request, reply, context));
}

function unsupported(message: string, param: string): TokentapError {
  return new TokentapError('TT_UNSUPPORTED_FEATURE', { message, param });
}

/**
 * Validates a Completions body. One call records one prompt and one sampled sequence: a list of several prompts,
 * `n > 1` and `best_of > 1` are refused; so is `echo`, which puts the prompt into the text and the logprobs of
 * the completion. A one-element list is one prompt.
 *
 * @example parseCompletionsBody({ prompt: [9707, 11], model: 'm' })
 */
export function parseCompletionsBody(body: unknown): Record<string, unknown> {
  // a list of token ids is checked by a plain loop: zod's per-element checks held the event loop ~4 s on 10 M ids
  const ids = tokenIdList(body);
  const parsed = completionsBodySchema.safeParse(ids === null ? body : { ...(body as Record<string, unknown>), prompt: '' });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') ?? null;
    throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid completion request: ${z.prettifyError(parsed.error)}`, param });
  }
  const data = parsed.data;
  if (ids !== null) data.prompt = ids;
  const prompt = data.prompt;
  if (Array.isArray(prompt) && prompt.length === 0) throw new TokentapError('TT_INVALID_REQUEST', { message: 'Invalid completion request: prompt is empty', param: 'prompt' });
  if (Array.isArray(prompt) && typeof prompt[0] !== 'number' && prompt.length > 1) {
    throw unsupported(`tokentap records one prompt per call; this request has ${prompt.length} prompts (send one request each)`, 'prompt');
  }
  if (typeof data.n === 'number' && data.n > 1) throw unsupported('n > 1 is not supported: one call records one sampled sequence', 'n');
  if (typeof data.best_of === 'number' && data.best_of > 1) throw unsupported('best_of > 1 is not supported: one call records one sampled sequence', 'best_of');
  if (data.echo === true) throw unsupported('echo is not supported: it mixes the prompt into the recorded completion', 'echo');
  return data as Record<string, unknown>;
}

async function handleCompletions(request: FastifyRequest<{ Params: RouteParams }>, reply: FastifyReply, context: GatewayContext): Promise<void> {
  const requestBody = parseCompletionsBody(request.body);
  const { backendBody, asked } = prepareCompletionRequest(requestBody, { model: context.config.model, topLogprobs: context.config.topLogprobs });
  await runChatCall({
    request,
    reply,
    context,
    frontDoor: 'openai-completions',
    requestBody,
    backendBody,
    stream: requestBody.stream === true,
    renderer: createOpenAiCompletionsRenderer(asked),
    backendPath: '/v1/completions',
    createAssembler: () => new CompletionStreamAssembler(),
  });
}

/**
 * The body's `prompt` when it is a list of numbers, each checked to be a token id (a whole number from 0); null when
 * the prompt is anything else (the schema judges it). Throws at the first id that is not one.
 */
function tokenIdList(body: unknown): number[] | null {
  if (typeof body !== 'object' || body === null) return null;
  const prompt = (body as { prompt?: unknown }).prompt;
  if (!Array.isArray(prompt) || prompt.length === 0 || typeof prompt[0] !== 'number') return null;
  for (let index = 0; index < prompt.length; index++) {
    const id: unknown = prompt[index];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) {
      throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid completion request: prompt[${index}] must be a token id (a whole number from 0), got ${JSON.stringify(id) ?? String(id)}`, param: `prompt.${index}` });
    }
  }
  return prompt as number[];
}
