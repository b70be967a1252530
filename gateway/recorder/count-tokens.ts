import type { FinishCallInput } from '../../store/types.js';

/** Token ids a finish carries, counted before its arrays may be handed to another thread. */
export interface TokenCounts {
  prompt: number;
  completion: number;
}

/**
 * The ids a finish records (what `tokentap_tokens_recorded_total` counts).
 *
 * @example countTokens(result) // { prompt: 1200, completion: 85 }
 */
export function countTokens(result: FinishCallInput): TokenCounts {
  return { prompt: result.promptTokenIds?.length ?? 0, completion: result.completionTokenIds?.length ?? 0 };
}
