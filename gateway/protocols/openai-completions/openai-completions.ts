import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../../gateway-context.js';
import { CompletionStreamAssembler } from '../../backends/completion-stream-assembler.js';
import { prepareCompletionRequest } from '../../backends/vllm-completion-request.js';
import { runChatCall } from '../../calls/run-chat-call.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { isRecord } from '../../../core/json/is-record.js';
import { INT32_TOKEN_ID_MAX, isInt32TokenId } from '../../../core/token-ids/is-int32-token-id.js';
import { createOpenAiCompletionsRenderer } from './openai-completions-renderer.js';

/**
 * Only what tokentap reads is validated; every other field passes through untouched (a loose object).
 * `prompt` is a string or a list of token ids (vLLM also takes lists of prompts, refused below); token-id prompts are
 * checked by `tokenIdPrompt` before this schema, which then only sees a placeholder.
 */
const completionsBodySchema = z.looseObject({
  model: z.string().optional(),
  prompt: z.union([z.string(), z.array(z.number()), z.array(z.string()), z.array(z.array(z.number()))]),
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
  // token ids are checked by a plain loop: zod's per-element checks held the event loop ~4 s on 10 M ids
  const ids = tokenIdPrompt(body);
  const parsed = completionsBodySchema.safeParse(ids === null ? body : { ...(body as Record<string, unknown>), prompt: '' });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') ?? null;
    throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid completion request: ${z.prettifyError(parsed.error)}`, param });
  }
  const data = parsed.data;
  if (ids !== null) data.prompt = ids;
  const prompt = data.prompt;
  if (Array.isArray(prompt) && prompt.length === 0)
    throw new TokentapError('TT_INVALID_REQUEST', { message: 'Invalid completion request: prompt is empty', param: 'prompt' });
  if (Array.isArray(prompt) && typeof prompt[0] !== 'number' && prompt.length > 1) {
    throw unsupported(`tokentap records one prompt per call; this request has ${prompt.length} prompts (send one request each)`, 'prompt');
  }
  if (typeof data.n === 'number' && data.n > 1) throw unsupported('n > 1 is not supported: one call records one sampled sequence', 'n');
  if (typeof data.best_of === 'number' && data.best_of > 1)
    throw unsupported('best_of > 1 is not supported: one call records one sampled sequence', 'best_of');
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
 * The body's `prompt` when it is in a token-id form (a list of ids, or a list of such lists), every id checked to be
 * one tokentap can forward and store (`isInt32TokenId`: a whole number from 0 to 2^31 - 1); null when the prompt is
 * anything else (the schema judges it). Throws at the first id that is not one, before any backend is asked or any
 * row begun: a `[2147483648]` that reached the backend failed only at the store, as a recording failure (issue 12).
 */
function tokenIdPrompt(body: unknown): number[] | number[][] | null {
  if (!isRecord(body)) return null;
  const prompt = body.prompt;
  if (!Array.isArray(prompt) || prompt.length === 0) return null;
  if (typeof prompt[0] === 'number') return checkTokenIds(prompt, 'prompt');
  // vLLM also takes a list of token-id prompts; one of them is one prompt (more are refused after the schema)
  if (!prompt.every((entry) => Array.isArray(entry))) return null;
  prompt.forEach((entry: unknown[], index) => checkTokenIds(entry, `prompt.${index}`));
  return prompt as number[][];
}

/** `param` is the list's path in the body, dotted as the error's `param` names it (`prompt`, `prompt.0`). */
function checkTokenIds(ids: unknown[], param: string): number[] {
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index];
    if (isInt32TokenId(id)) continue;
    const shown = typeof id === 'number' ? String(id) : (JSON.stringify(id) ?? String(id));
    throw new TokentapError('TT_INVALID_REQUEST', {
      message: `Invalid completion request: ${param}.${index} must be a token id (a whole number from 0 to ${INT32_TOKEN_ID_MAX}), got ${shown}`,
      param: `${param}.${index}`,
    });
  }
  return ids as number[];
}
