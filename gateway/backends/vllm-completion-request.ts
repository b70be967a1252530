import { isRecord } from '../../core/json/is-record.js';

/** What the harness asked for itself on /v1/completions, so tokentap strips exactly what it injected. */
export interface CompletionAsked {
  /** the harness sent `return_token_ids: true` */
  tokenIds: boolean;
  /** the harness's legacy `logprobs: k` (-1: all vLLM allows), null when not asked */
  logprobs: number | null;
  /** streaming only: the harness sent `stream_options.include_usage: true` */
  streamUsage: boolean;
}

export interface PrepareCompletionRequestOptions {
  /** replaces the harness's model name (`--model`) */
  model?: string | undefined;
  /** alternatives per position to record on every call (0: only the sampled token's logprob) */
  topLogprobs: number;
}

/**
 * Builds the body for vLLM's /v1/completions: every field as sent, plus what tokentap records:
 * `return_token_ids` (vLLM then puts `prompt_token_ids` and `token_ids` inside each choice) and legacy
 * `logprobs: k` with k at least 1, so `choices[].logprobs.token_logprobs` holds the sampled token's logprob
 * (shared/reference B.1), and for streams usage (to check the joined ids against).
 *
 * @example const { backendBody, asked } = prepareCompletionRequest({ prompt: 'Hi', model: 'm' }, { topLogprobs: 0 })
 */
export function prepareCompletionRequest(
  body: Record<string, unknown>,
  options: PrepareCompletionRequestOptions,
): { backendBody: Record<string, unknown>; asked: CompletionAsked } {
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : undefined;
  const asked: CompletionAsked = {
    tokenIds: body.return_token_ids === true,
    logprobs: typeof body.logprobs === 'number' ? body.logprobs : null,
    streamUsage: streamOptions?.include_usage === true,
  };
  const backendBody: Record<string, unknown> = { ...body, return_token_ids: true };
  if (options.model !== undefined) backendBody.model = options.model;
  backendBody.logprobs = asked.logprobs === -1 ? -1 : Math.max(asked.logprobs ?? 0, options.topLogprobs, 1);
  if (body.stream === true) backendBody.stream_options = { ...streamOptions, include_usage: true };
  return { backendBody, asked };
}
