import { isRecord } from '../../../core/json/is-record.js';

/**
 * Chat sampling fields that SGLang's `sampling_params` (python/sglang/srt/sampling/sampling_params.py) takes under
 * the same name. The rest are renamed below, or decided by the gateway (the prompt, the parsers), or have no
 * SGLang counterpart (vLLM's `bad_words`, `allowed_token_ids`, `truncate_prompt_tokens`, ...).
 */
const SAME_NAME_FIELDS = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'stop',
  'stop_token_ids',
  'stop_regex',
  'ignore_eos',
  'skip_special_tokens',
  'spaces_between_special_tokens',
  'no_stop_trim',
  'logit_bias',
  'regex',
  'ebnf',
  'json_schema',
  'custom_params',
] as const;

/**
 * The body of SGLang's native `POST /generate` for a token-faithful call (docs/backends.md): the rendered prompt as
 * `input_ids` (SGLang then applies no template), the chat body's sampling fields under SGLang's names
 * (`max_new_tokens` from either chat name, null meaning the rest of the context as on chat; `min_new_tokens`;
 * `sampling_seed`; `no_stop_trim` from vLLM's `include_stop_str_in_output`; `response_format` as `json_schema`, as
 * SGLang's own chat endpoint does in `to_sampling_params`), and the sampled tokens' logprobs with their text
 * (`return_logprob`, `logprob_start_len: -1` for the output only, `top_logprobs_num`, `return_text_in_logprobs`).
 * Text and ids keep SGLang's defaults, which are vLLM's: special tokens skipped and stop strings trimmed in the
 * text only; `output_ids` always holds every sampled id through the stop token (`output_ids_through_stop`).
 *
 * `keepSpecialTokens` (gpt-oss) asks `skip_special_tokens: false`, as the vLLM route does.
 *
 * @example buildGenerateRequest({ model: 'm', messages, max_tokens: 64 }, [151644, 872]).sampling_params // { max_new_tokens: 64 }
 */
export function buildGenerateRequest(
  chatBody: Record<string, unknown>,
  promptIds: readonly number[],
  options: { keepSpecialTokens?: boolean } = {},
): Record<string, unknown> {
  const samplingParams = samplingParamsFromChat(chatBody);
  // a family whose output is read with its special tokens (Harmony's <|channel|>) must get them in the text
  if (options.keepSpecialTokens === true) samplingParams.skip_special_tokens = false;
  return {
    input_ids: [...promptIds],
    sampling_params: samplingParams,
    return_logprob: true,
    logprob_start_len: -1,
    top_logprobs_num: Math.max(0, numberOrNull(chatBody.top_logprobs) ?? 0),
    return_text_in_logprobs: true,
    stream: chatBody.stream === true,
  };
}

/** SGLang's `sampling_params` for a vLLM chat body. @example samplingParamsFromChat({ seed: 7 }) // { max_new_tokens: null, sampling_seed: 7 } */
export function samplingParamsFromChat(chatBody: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const field of SAME_NAME_FIELDS) if (chatBody[field] !== undefined && chatBody[field] !== null) params[field] = chatBody[field];
  // SamplingParams defaults max_new_tokens to 128; null is "up to the context length" (Scheduler.init_req_max_new_tokens)
  params.max_new_tokens = numberOrNull(chatBody.max_completion_tokens) ?? numberOrNull(chatBody.max_tokens);
  if (typeof chatBody.min_tokens === 'number') params.min_new_tokens = chatBody.min_tokens;
  if (typeof chatBody.seed === 'number') params.sampling_seed = chatBody.seed;
  if (chatBody.include_stop_str_in_output === true) params.no_stop_trim = true;
  const schema = jsonSchemaFromResponseFormat(chatBody.response_format);
  if (schema !== null && params.json_schema === undefined) params.json_schema = schema;
  return params;
}

/** `response_format` as SGLang's chat endpoint turns it into `json_schema` (protocol.py `to_sampling_params`). */
function jsonSchemaFromResponseFormat(format: unknown): string | null {
  if (!isRecord(format)) return null;
  if (format.type === 'json_object') return '{"type": "object"}';
  if (format.type === 'json_schema' && isRecord(format.json_schema) && format.json_schema.schema !== undefined) {
    return JSON.stringify(format.json_schema.schema);
  }
  return null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
