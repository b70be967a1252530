import type { SglangFinishReason } from './sglang-generation.js';
import { inputTokenLogprobs, inputTopLogprobs, outputTokenLogprobs, outputTopLogprobs, type SglangLogprobSource } from './sglang-logprobs.js';

/** One `/generate` output (a whole answer, or one streamed frame) as the meta_info builder needs it. */
export interface MetaInfoInput {
  id: string;
  /** null on a streamed frame before the last */
  finishReason: SglangFinishReason | null;
  promptTokens: number;
  weightVersion: string;
  /** set when the request asked `return_logprob` */
  logprobs: SglangLogprobSource | null;
  /** all output ids so far; the logprob lists cover `[logprobsFrom, outputIds.length)` (incremental streaming slices) */
  outputIds: readonly number[];
  logprobsFrom: number;
  reasoningTokens: number;
  cachedTokens: number;
  /** seconds from arrival to the end, on the finished output */
  e2eLatency: number | null;
  /** on the first output sent to the client only */
  responseSentToClientTs: number | null;
}

/**
 * `meta_info` in the order current SGLang builds it (tokenizer_manager_components/output_processor.py
 * `handle_batch_output`, then `_wait_one_response`): id, finish_reason, prompt_tokens, weight_version,
 * num_retractions (named total_retractions in April 2026 builds), the logprob fields of `logprob_ops.fill_meta_info`
 * when `return_logprob` (input_token_logprobs, output_token_logprobs, output_token_logprobs_length, then
 * input/output_top_logprobs when `top_logprobs_num` > 0), reasoning_tokens, completion_tokens, cached_tokens,
 * cached_tokens_details, dp_rank, e2e_latency (finished), response_sent_to_client_ts (first output sent).
 *
 * @example
 * JSON.stringify(generateMetaInfo(input)); // '{"id":"3feed…","finish_reason":{"type":"length","length":32},…}'
 */
export function generateMetaInfo(input: MetaInfoInput): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    id: input.id,
    finish_reason: input.finishReason,
    prompt_tokens: input.promptTokens,
    weight_version: input.weightVersion,
    num_retractions: 0,
  };
  const source = input.logprobs;
  if (source !== null) {
    const ids = input.outputIds.slice(input.logprobsFrom);
    meta.input_token_logprobs = inputTokenLogprobs(source);
    meta.output_token_logprobs = outputTokenLogprobs(source, ids, input.logprobsFrom);
    meta.output_token_logprobs_length = input.outputIds.length;
    if (source.topLogprobsNum > 0) {
      meta.input_top_logprobs = inputTopLogprobs(source);
      meta.output_top_logprobs = outputTopLogprobs(source, ids, input.logprobsFrom);
    }
  }
  meta.reasoning_tokens = input.reasoningTokens;
  meta.completion_tokens = input.outputIds.length;
  meta.cached_tokens = input.cachedTokens;
  meta.cached_tokens_details = { device: input.cachedTokens, host: 0 };
  meta.dp_rank = null;
  if (input.e2eLatency !== null) meta.e2e_latency = input.e2eLatency;
  if (input.responseSentToClientTs !== null) meta.response_sent_to_client_ts = input.responseSentToClientTs;
  return meta;
}
