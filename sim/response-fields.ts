import type { ReasoningField } from './sim-options.js';

/**
 * vLLM's UsageInfo in its field order. Non-streamed bodies dump every field (`prompt_tokens_details: null`);
 * stream chunks are dumped with `exclude_unset`, which leaves it out.
 *
 * @example
 * usageInfo(63, 200, { withDetails: true }); // { prompt_tokens: 63, total_tokens: 263, completion_tokens: 200, prompt_tokens_details: null }
 */
export function usageInfo(promptTokens: number, completionTokens: number, options: { withDetails: boolean }): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens: completionTokens,
  };
  if (options.withDetails) usage.prompt_tokens_details = null;
  return usage;
}

/**
 * Sets the reasoning text under the flavour's key(s); with "both", `reasoning_content` comes first as in
 * the vLLM releases that sent both names.
 *
 * @example
 * setReasoning(message, 'reasoning_content', 'because'); // message.reasoning_content === 'because'
 */
export function setReasoning(target: Record<string, unknown>, field: ReasoningField, value: string | null): void {
  if (field === 'reasoning_content' || field === 'both') target.reasoning_content = value;
  if (field === 'reasoning' || field === 'both') target.reasoning = value;
}

/**
 * Sets a token-id field: the ids when `return_token_ids` was asked, else null or nothing per the flavour.
 *
 * @example
 * setTokenIds(choice, 'token_ids', [1249], { requested: false, unrequested: 'null' }); // choice.token_ids === null
 */
export function setTokenIds(
  target: Record<string, unknown>,
  key: string,
  ids: readonly number[] | null,
  options: { requested: boolean; unrequested: 'null' | 'absent' },
): void {
  if (options.requested) target[key] = ids;
  else if (options.unrequested === 'null') target[key] = null;
}
