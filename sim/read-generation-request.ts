import { z } from 'zod';
import { MAX_LOGPROBS } from './sim-options.js';
import { VllmError } from './vllm-error.js';

const optionalInteger = z.number().int().nullish();
const streamOptionsSchema = z.looseObject({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() }).nullish();
const commonFields = {
  model: z.string().nullish(),
  stream: z.boolean().nullish(),
  stream_options: streamOptionsSchema,
  n: optionalInteger,
  max_tokens: optionalInteger,
  return_token_ids: z.boolean().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stop_token_ids: z.array(z.number().int()).nullish(),
  request_id: z.string().nullish(),
};

// loose: vLLM's request models allow extra fields, and the simulator reads only these
export const chatRequestSchema = z.looseObject({
  ...commonFields,
  messages: z.array(z.unknown()),
  max_completion_tokens: optionalInteger,
  logprobs: z.boolean().nullish(),
  top_logprobs: optionalInteger,
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
  add_generation_prompt: z.boolean().nullish(),
  continue_final_message: z.boolean().nullish(),
});

export const completionRequestSchema = z.looseObject({
  ...commonFields,
  prompt: z.union([z.string(), z.array(z.number().int().min(0)), z.array(z.string()), z.array(z.array(z.number().int().min(0)))]),
  logprobs: optionalInteger,
});

export type ChatRequest = z.output<typeof chatRequestSchema>;
export type CompletionRequest = z.output<typeof completionRequestSchema>;

/**
 * Validates the fields the simulator reads and applies vLLM's request checks, throwing vLLM's 400s.
 *
 * @example
 * const chat = readGenerationRequest(chatRequestSchema, request.body);
 */
export function readGenerationRequest<Schema extends typeof chatRequestSchema | typeof completionRequestSchema>(
  schema: Schema,
  body: unknown,
): z.output<Schema> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    throw new VllmError(400, `${field === '' ? 'request' : field}: ${issue?.message ?? 'invalid request'}`, { param: field || null });
  }
  const request = parsed.data;
  if (request.stream_options !== undefined && request.stream_options !== null && request.stream !== true) {
    throw new VllmError(400, 'Stream options can only be defined when `stream=True`.', { param: 'stream_options' });
  }
  if (request.n !== undefined && request.n !== null && request.n !== 1) {
    throw new VllmError(400, `n=${request.n} is not supported by the tokentap simulator; only n=1.`, { param: 'n' });
  }
  checkLogprobs(request);
  return request as z.output<Schema>;
}

function checkLogprobs(request: ChatRequest | CompletionRequest): void {
  if (Array.isArray(request.messages)) {
    const top = (request as ChatRequest).top_logprobs;
    if (top === undefined || top === null) return;
    if (top < 0 && top !== -1) throw new VllmError(400, '`top_logprobs` must be a positive value or -1.', { param: 'top_logprobs' });
    if ((top === -1 || top > 0) && request.logprobs !== true) {
      throw new VllmError(400, 'when using `top_logprobs`, `logprobs` must be set to true.', { param: 'top_logprobs' });
    }
    if (top > MAX_LOGPROBS) throw tooManyLogprobs(top);
    return;
  }
  const logprobs = (request as CompletionRequest).logprobs;
  if (logprobs === undefined || logprobs === null) return;
  if (logprobs < 0 && logprobs !== -1) throw new VllmError(400, '`logprobs` must be a positive value or -1.', { param: 'logprobs' });
  if (logprobs > MAX_LOGPROBS) throw tooManyLogprobs(logprobs);
}

function tooManyLogprobs(requested: number): VllmError {
  return new VllmError(400, `Requested sample logprobs of ${requested}, which is greater than max allowed: ${MAX_LOGPROBS}`, {
    param: 'logprobs',
  });
}

/**
 * `stream_options` as vLLM's `should_include_usage` reads them: `include_usage` defaults to true once
 * `stream_options` is given (StreamOptions' default), and continuous stats need include_usage.
 *
 * @example
 * usageOptions({ stream: true, stream_options: { include_usage: true } }); // { includeUsage: true, continuousUsage: false }
 */
export function usageOptions(request: ChatRequest | CompletionRequest): { includeUsage: boolean; continuousUsage: boolean } {
  const options = request.stream === true ? request.stream_options : null;
  if (options === undefined || options === null) return { includeUsage: false, continuousUsage: false };
  const includeUsage = 'include_usage' in options ? options.include_usage === true : true;
  return { includeUsage, continuousUsage: includeUsage && options.continuous_usage_stats === true };
}
