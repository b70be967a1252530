import { isRecord } from '../../core/json/is-record.js';
import type { CompletionAsked } from './vllm-completion-request.js';
import type { ChoiceTokenFields } from './token-tally.js';
import { readTokenIds } from './read-token-ids.js';

/**
 * Reading and stripping vLLM /v1/completions payloads. Facts (shared/reference B.1 and
 * shared/fixtures/vllm-captures/vllm-completions-nonstream-v0.25.1-per-choice-fields.txt): with
 * `return_token_ids`, `prompt_token_ids` and `token_ids` sit inside each choice (not top level), the prompt ids
 * on the first stream chunk only; legacy logprobs are `{tokens, token_logprobs, top_logprobs, text_offset}`;
 * null and missing mean the same.
 */
export interface CompletionChoiceTokens extends ChoiceTokenFields {
  promptTokenIds: number[] | null;
}

/** @example readCompletionChoiceTokens(body.choices[0]).tokenIds // [9707, 0, 151645] */
export function readCompletionChoiceTokens(choice: Record<string, unknown>): CompletionChoiceTokens {
  const legacy = isRecord(choice.logprobs) && Array.isArray(choice.logprobs.token_logprobs) ? choice.logprobs.token_logprobs : null;
  const stop = choice.stop_reason;
  return {
    promptTokenIds: readTokenIds(choice.prompt_token_ids, 'prompt_token_ids'),
    tokenIds: readTokenIds(choice.token_ids, 'token_ids'),
    logprobs: legacy === null ? null : legacy.map((value) => (typeof value === 'number' ? value : Number.NaN)),
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    stopReason: typeof stop === 'string' || typeof stop === 'number' ? stop : null,
  };
}

/**
 * Removes in place what tokentap injected and the harness did not ask for: the choice's `prompt_token_ids` and
 * `token_ids`, `logprobs` (or alternatives beyond the harness's k), and the usage-only chunk. Returns false when
 * the whole payload must be dropped.
 */
export function stripCompletionFields(payload: Record<string, unknown>, asked: CompletionAsked, streaming: boolean): boolean {
  if (streaming && !asked.streamUsage && 'usage' in payload) {
    if (Array.isArray(payload.choices) && payload.choices.length === 0) return false;
    delete payload.usage;
  }
  if (!Array.isArray(payload.choices)) return true;
  for (const choice of payload.choices) {
    if (!isRecord(choice)) continue;
    if (!asked.tokenIds) {
      delete choice.prompt_token_ids;
      delete choice.token_ids;
    }
    if (asked.logprobs === null) {
      if ('logprobs' in choice) choice.logprobs = null;
    } else if (asked.logprobs !== -1 && isRecord(choice.logprobs) && Array.isArray(choice.logprobs.top_logprobs)) {
      const tokens = Array.isArray(choice.logprobs.tokens) ? choice.logprobs.tokens : [];
      const keep = asked.logprobs;
      choice.logprobs.top_logprobs = choice.logprobs.top_logprobs.map((top, position) => trimTop(top, tokens[position], keep));
    }
  }
  return true;
}

/**
 * What vLLM would have sent for `logprobs: keep`: the `keep` likeliest alternatives, plus the sampled token
 * when it is not among them. Ranked by value, not key order (JSON objects reorder integer-like keys).
 */
function trimTop(top: unknown, sampled: unknown, keep: number): unknown {
  if (!isRecord(top)) return top;
  const entries = Object.entries(top);
  if (entries.length <= keep) return top;
  const ranked = entries.sort((left, right) => Number(right[1]) - Number(left[1])).slice(0, keep);
  if (typeof sampled === 'string' && sampled in top && !ranked.some(([token]) => token === sampled)) ranked.push([sampled, top[sampled]]);
  return Object.fromEntries(ranked);
}
