import { isRecord } from '../../core/json/is-record.js';
import type { HarnessAsked } from './vllm-chat-request.js';
import type { ChoiceTokenFields } from './token-tally.js';
import { readTokenIds } from './read-token-ids.js';

/**
 * Reading and stripping vLLM chat payloads. vLLM field facts (shared/fixtures/vllm-captures/SOURCES.md):
 * `prompt_token_ids` is top-level, in the first stream chunk only; each choice carries `token_ids` (per chunk
 * when streaming, the EOS id on the finishing chunk); null and missing mean the same.
 */

/** A chat choice's token ids, logprobs, finish and stop reasons (null where the payload carried none). */
export function readChoiceTokens(choice: Record<string, unknown>): ChoiceTokenFields {
  const tokenIds = readTokenIds(choice.token_ids, 'token_ids');
  const logprobContent = isRecord(choice.logprobs) && Array.isArray(choice.logprobs.content) ? choice.logprobs.content : null;
  const logprobs =
    logprobContent === null
      ? null
      : logprobContent.map((entry) => (isRecord(entry) && typeof entry.logprob === 'number' ? entry.logprob : Number.NaN));
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  const stop = choice.stop_reason;
  const stopReason = typeof stop === 'string' || typeof stop === 'number' ? stop : null;
  return { tokenIds, logprobs, finishReason, stopReason };
}

export function readPromptTokenIds(payload: Record<string, unknown>): number[] | null {
  return readTokenIds(payload.prompt_token_ids, 'prompt_token_ids');
}

export function readUsage(payload: Record<string, unknown>): { promptTokens?: number; completionTokens?: number; cachedTokens?: number } | null {
  if (!isRecord(payload.usage)) return null;
  const usage: { promptTokens?: number; completionTokens?: number; cachedTokens?: number } = {};
  if (typeof payload.usage.prompt_tokens === 'number') usage.promptTokens = payload.usage.prompt_tokens;
  if (typeof payload.usage.completion_tokens === 'number') usage.completionTokens = payload.usage.completion_tokens;
  const details = payload.usage.prompt_tokens_details;
  if (isRecord(details) && typeof details.cached_tokens === 'number') usage.cachedTokens = details.cached_tokens;
  return usage;
}

/** SGLang's weight version (`metadata.weight_version` on its OpenAI answers), null when the payload has none. */
export function readWeightVersion(payload: Record<string, unknown>): string | null {
  return isRecord(payload.metadata) && typeof payload.metadata.weight_version === 'string' ? payload.metadata.weight_version : null;
}

/** A mid-stream or body error: newer vLLM sends `{"error":{...}}`, older a flat `{"object":"error",...}`, no choices. */
export function isBackendErrorPayload(payload: Record<string, unknown>): boolean {
  return (isRecord(payload.error) || payload.object === 'error') && !Array.isArray(payload.choices);
}

/**
 * Removes in place what tokentap injected and the harness did not ask for, leaving every other field as sent.
 * Returns false when the whole payload must be dropped (the usage-only chunk the harness did not ask for).
 */
export function stripInjectedFields(payload: Record<string, unknown>, asked: HarnessAsked, streaming: boolean): boolean {
  if (!asked.tokenIds) delete payload.prompt_token_ids;
  if (streaming && !asked.streamUsage && 'usage' in payload) {
    const choices = payload.choices;
    if (Array.isArray(choices) && choices.length === 0) return false;
    delete payload.usage;
  }
  if (!Array.isArray(payload.choices)) return true;
  for (const choice of payload.choices) {
    if (!isRecord(choice)) continue;
    if (!asked.tokenIds) {
      delete choice.token_ids;
      // SGLang's chat puts the prompt ids in the choice (vLLM: top level, above)
      delete choice.prompt_token_ids;
    }
    if (!asked.logprobs) {
      if ('logprobs' in choice) choice.logprobs = null;
    } else if (isRecord(choice.logprobs) && Array.isArray(choice.logprobs.content)) {
      trimTopLogprobs(choice.logprobs.content, asked.topLogprobs);
    }
  }
  return true;
}

function trimTopLogprobs(content: unknown[], keep: number): void {
  for (const entry of content) {
    if (isRecord(entry) && Array.isArray(entry.top_logprobs) && entry.top_logprobs.length > keep) {
      entry.top_logprobs = entry.top_logprobs.slice(0, keep);
    }
  }
}
