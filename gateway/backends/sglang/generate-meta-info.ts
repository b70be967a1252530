import { isRecord } from '../../../core/json/is-record.js';

/**
 * Reading SGLang's `/generate` `meta_info` (tokenizer_manager.py, logprob_ops.py): logprobs are
 * `[logprob, token_id, text|null]` triples (`output_token_logprobs`; `output_top_logprobs` one list of triples, or
 * null, per position), `prompt_tokens` / `completion_tokens` / `cached_tokens` are counts of the whole call so far.
 */

/** vLLM's legacy completions logprobs, as `toChatLogprobs` and the completions assembler read them. */
export interface LegacyLogprobs {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: (Record<string, number> | null)[] | null;
  text_offset: number[];
}

/**
 * Positions `offset` to `offset + count` of the call's logprobs, in vLLM's legacy form; null when SGLang sent none.
 * @example completionLogprobs({ output_token_logprobs: [[-0.1, 9707, 'Hello']] }, 0, 1) // { tokens: ['Hello'], token_logprobs: [-0.1], ... }
 */
export function completionLogprobs(meta: Record<string, unknown>, offset: number, count: number): LegacyLogprobs | null {
  if (!Array.isArray(meta.output_token_logprobs)) return null;
  const entries = meta.output_token_logprobs.slice(offset, offset + count);
  const tops = Array.isArray(meta.output_top_logprobs) ? meta.output_top_logprobs.slice(offset, offset + count) : null;
  return {
    tokens: entries.map((entry) => tokenText(entry)),
    token_logprobs: entries.map((entry) => (Array.isArray(entry) && typeof entry[0] === 'number' ? entry[0] : null)),
    top_logprobs: tops === null ? null : tops.map((top) => (Array.isArray(top) ? topEntries(top) : null)),
    text_offset: [],
  };
}

/** `{text: logprob}` of one position's alternatives (the text SGLang decoded, else the id). */
function topEntries(top: unknown[]): Record<string, number> {
  const entries: Record<string, number> = {};
  for (const entry of top) if (Array.isArray(entry) && typeof entry[0] === 'number') entries[tokenText(entry)] = entry[0];
  return entries;
}

function tokenText(entry: unknown): string {
  if (!Array.isArray(entry)) return '';
  if (typeof entry[2] === 'string') return entry[2];
  return typeof entry[1] === 'number' ? String(entry[1]) : '';
}

/**
 * `finish_reason` and `stop_reason` as vLLM names them: SGLang's `{type, matched}` (stop | length | abort; `matched`
 * the stop token id, EOS included, or the stop string), null while the generation runs.
 *
 * @example finishOf({ finish_reason: { type: 'stop', matched: 151645 } }) // { finishReason: 'stop', stopReason: 151645 }
 */
export function finishOf(meta: Record<string, unknown>): { finishReason: string | null; stopReason: string | number | null } {
  const finish = meta.finish_reason;
  if (!isRecord(finish) || typeof finish.type !== 'string') return { finishReason: null, stopReason: null };
  const matched = finish.matched;
  const stopReason = finish.type === 'stop' && (typeof matched === 'number' || typeof matched === 'string') ? matched : null;
  return { finishReason: finish.type, stopReason };
}

/** OpenAI usage from meta_info's counts, `cached_tokens` as `prompt_tokens_details.cached_tokens`. */
export function completionUsage(meta: Record<string, unknown>): Record<string, unknown> {
  const prompt = typeof meta.prompt_tokens === 'number' ? meta.prompt_tokens : undefined;
  const completion = typeof meta.completion_tokens === 'number' ? meta.completion_tokens : undefined;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt === undefined || completion === undefined ? undefined : prompt + completion,
    prompt_tokens_details: typeof meta.cached_tokens === 'number' ? { cached_tokens: meta.cached_tokens } : null,
  };
}
