import type { CallFlag, TokenSource } from '../../store/types.js';

/** What one chat call yielded at token level, gathered from a whole body or from stream chunks. */
export interface ChatTokenRecord {
  tokenSource: TokenSource;
  promptTokenIds: number[] | null;
  completionTokenIds: number[] | null;
  completionLogprobs: number[] | null;
  finishReason: string | null;
  stopReason: string | number | null;
  /** the backend's counts; `cachedTokens`: prompt tokens served from its prefix cache (SGLang `cached_tokens`, OpenAI `prompt_tokens_details.cached_tokens`) */
  usage: { promptTokens?: number; completionTokens?: number; cachedTokens?: number } | null;
  flags: CallFlag[];
  /** the backend's own weight version (SGLang `weight_version`), null or absent when it reported none (vLLM) */
  weightVersion?: string | null;
}

/**
 * Checks a record's ids against each other and the reported usage. Older vLLM versions drop the ids of
 * tool-call tokens while streaming (vllm#27482); such a call is flagged, never silently trusted.
 *
 * @example const flags = checkTokenRecord(record)
 */
export function checkTokenRecord(record: Omit<ChatTokenRecord, 'flags' | 'tokenSource'>): CallFlag[] {
  const flags: CallFlag[] = [];
  const completion = record.completionTokenIds;
  if (completion === null) return flags;
  const reported = record.usage?.completionTokens;
  if (reported !== undefined && reported !== completion.length) flags.push('completion_ids_mismatch_usage');
  if (record.completionLogprobs !== null && record.completionLogprobs.length !== completion.length) {
    flags.push('logprobs_length_mismatch');
  }
  if (record.promptTokenIds === null) flags.push('prompt_ids_missing');
  else if (record.usage?.promptTokens !== undefined && record.usage.promptTokens !== record.promptTokenIds.length) {
    flags.push('prompt_ids_mismatch_usage');
  }
  return flags;
}
