import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { VllmError } from '../vllm-error.js';

const optionalInteger = z.number().int().nullish();
const tokenIds = z.array(z.number().int().min(0));

// loose: GenerateReqInput and SamplingParams take many more fields (image_data, lora_path, regex, ...); the
// simulator reads only these and ignores the rest
const samplingParamsSchema = z.looseObject({
  max_new_tokens: optionalInteger,
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: optionalInteger,
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stop_token_ids: z.array(z.number().int()).nullish(),
  ignore_eos: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  no_stop_trim: z.boolean().nullish(),
  n: optionalInteger,
});

export const generateRequestSchema = z.looseObject({
  text: z.union([z.string(), z.array(z.string())]).nullish(),
  input_ids: z.union([tokenIds, z.array(tokenIds)]).nullish(),
  sampling_params: samplingParamsSchema.nullish(),
  return_logprob: z.boolean().nullish(),
  logprob_start_len: optionalInteger,
  top_logprobs_num: optionalInteger,
  return_text_in_logprobs: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  rid: z.string().nullish(),
});

export type GenerateRequest = z.output<typeof generateRequestSchema>;

/** SamplingParams' default `max_new_tokens` (sampling_params.py). */
export const DEFAULT_MAX_NEW_TOKENS = 128;

/**
 * Validates a `/generate` body. A body that does not fit the dataclass is FastAPI's validation 400; a prompt that is
 * missing or given twice is GenerateReqInput's ValueError (the native `{"error": {"message"}}` 400).
 *
 * @example
 * const body = readGenerateRequest(request.body); // { text: 'The capital of France is', sampling_params: {...} }
 */
export function readGenerateRequest(body: unknown): GenerateRequest {
  const request = readSglangBody(generateRequestSchema, body);
  const hasText = request.text !== undefined && request.text !== null;
  const hasIds = request.input_ids !== undefined && request.input_ids !== null;
  if (!hasText && !hasIds) throw new VllmError(400, 'Either text, input_ids or input_embeds should be provided.');
  if (hasText && hasIds) throw new VllmError(400, 'Either text or input_ids should be provided.');
  checkSingleChoice(request.sampling_params?.n);
  return request;
}

/**
 * Parses an SGLang request body with its schema; a body that does not fit is FastAPI's validation 400 (`type: "Bad
 * Request"`), naming the first field at fault.
 *
 * @example
 * const body = readSglangBody(sglangChatSchema, request.body);
 */
export function readSglangBody<Schema extends z.ZodType>(schema: Schema, raw: unknown): z.output<Schema> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VllmError(400, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid request'}`, { type: 'Bad Request' });
  }
  return parsed.data;
}

/** The simulator answers one choice per request: `n` other than 1 is a 400. @example checkSingleChoice(body.n); */
export function checkSingleChoice(n: number | null | undefined): void {
  if (n !== undefined && n !== null && n !== 1) throw new VllmError(400, `n=${n} is not supported by the tokentap simulator; only n=1.`);
}

/** The prompt as one string or one id list; a batch (a list of prompts) is refused. @example generatePrompt(body) // 'Hello' */
export function generatePrompt(request: GenerateRequest): string | number[] {
  const prompt = request.text ?? request.input_ids;
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.every((id) => typeof id === 'number')) {
    if (prompt.length === 0) throw new VllmError(400, 'The input_ids is empty.');
    return prompt as number[];
  }
  throw new VllmError(400, 'The tokentap simulator takes one prompt per request (a string or a list of token ids), not a batch.');
}

/** The request id: the body's `rid`, else 32 random hex digits (GenerateReqInput's `uuid.uuid4().hex`). @example sglangRequestId(body) */
export function sglangRequestId(body: unknown): string {
  const rid = (body as { rid?: unknown } | null)?.rid;
  return typeof rid === 'string' && rid !== '' ? rid : randomUUID().replaceAll('-', '');
}

/**
 * The context-length checks of TokenizerManager `_validate_one_request`, as ValueErrors (400s): a prompt that fills the
 * context, or a prompt plus `max_new_tokens` above it.
 *
 * @example
 * checkContextLength(40960, 63, 128);
 */
export function checkContextLength(contextLength: number, promptTokens: number, maxNewTokens: number): void {
  if (promptTokens >= contextLength) {
    throw new VllmError(400, `The input (${promptTokens} tokens) is longer than the model's context length (${contextLength} tokens).`);
  }
  const total = promptTokens + maxNewTokens;
  if (total > contextLength) {
    throw new VllmError(
      400,
      `Requested token count exceeds the model's maximum context length of ${contextLength} tokens. ` +
        `You requested a total of ${total} tokens: ${promptTokens} tokens from the input messages and ` +
        `${maxNewTokens} tokens for the completion. Please reduce the number of tokens in the input messages or ` +
        'the completion to fit within the limit.',
    );
  }
}
