import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SimContext } from './sim-context.js';
import { hashNumbers } from './seeded-random.js';
import { contextLengthError, VllmError } from './vllm-error.js';

/**
 * The response id: `X-Request-Id` header, else the body's `request_id`, else 16 random hex digits, behind
 * the endpoint's prefix (vLLM's `_base_request_id`).
 *
 * @example
 * responseId('chatcmpl', request); // 'chatcmpl-b5fe4679e7fafeb8'
 */
export function responseId(prefix: 'chatcmpl' | 'cmpl', request: FastifyRequest): string {
  const header = request.headers['x-request-id'];
  const body = request.body as { request_id?: unknown } | undefined;
  const given = typeof header === 'string' && header !== '' ? header : typeof body?.request_id === 'string' ? body.request_id : undefined;
  return `${prefix}-${given ?? randomBytes(8).toString('hex')}`;
}

/**
 * vLLM's model check: a request naming a model that is not served gets 404.
 *
 * @example
 * checkModel(context, body.model);
 */
export function checkModel(context: SimContext, model: string | null | undefined): void {
  if (model === undefined || model === null || model === '' || context.acceptAnyModel || model === context.modelName) return;
  throw new VllmError(404, `The model \`${model}\` does not exist.`, { param: 'model' });
}

/**
 * The completion budget: the request's max tokens, or what is left of the context window (vLLM's
 * `get_max_tokens`); a prompt plus budget over `maxModelLen` is vLLM's context-length 400.
 *
 * @example
 * resolveMaxTokens(context, 63, 200); // 200
 */
export function resolveMaxTokens(context: SimContext, promptTokens: number, requested: number | null | undefined): number {
  if (requested !== undefined && requested !== null && requested < 1) {
    throw new VllmError(400, `max_tokens must be at least 1, got ${requested}.`, { param: 'max_tokens' });
  }
  const left = context.maxModelLen - promptTokens;
  const maxTokens = requested ?? left;
  if (maxTokens > left || left <= 0) {
    throw contextLengthError({ maxModelLen: context.maxModelLen, promptTokens, maxTokens: requested ?? 0, shape: context.errorShape });
  }
  return maxTokens;
}

const fastPromptBase: number[] = [];

/**
 * Fast mode's stand-in for a tokenized prompt: one id per 4 body bytes, cheap and deterministic, so usage
 * and `prompt_token_ids` still grow with the conversation. The ids are a prefix of one shared sequence.
 *
 * @example
 * fastPromptIds(4000).length; // 1000
 */
export function fastPromptIds(bodyBytes: number): number[] {
  const count = Math.max(1, Math.floor(bodyBytes / 4));
  for (let index = fastPromptBase.length; index < count; index++) fastPromptBase.push(1000 + ((index * 7919) % 100000));
  return fastPromptBase.slice(0, count);
}

/** @example bodyBytes(request) // the Content-Length, 0 when chunked */
export function bodyBytes(request: FastifyRequest): number {
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) ? length : 0;
}

/**
 * What seeds the policy and the logprobs of one request: a hash of the prompt ids, or in fast mode of the
 * body size (hashing a long stand-in prompt would cost more than the request).
 *
 * @example
 * seedHash(context, request, record.promptTokenIds);
 */
export function seedHash(context: SimContext, request: FastifyRequest, promptTokenIds: readonly number[]): number {
  return context.fast ? hashNumbers([bodyBytes(request)]) : hashNumbers(promptTokenIds);
}

/** The request's `stop` (a string or a list) and `stop_token_ids`. @example stopConditions({ stop: '\n' }) */
export function stopConditions(body: { stop?: string | string[] | null; stop_token_ids?: number[] | null }): {
  stop: string[];
  stopTokenIds: number[];
} {
  return { stop: typeof body.stop === 'string' ? [body.stop] : (body.stop ?? []), stopTokenIds: body.stop_token_ids ?? [] };
}
