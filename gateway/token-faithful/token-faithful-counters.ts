import type { PromptPlan } from './plan-prompt.js';
import type { SessionTokenHistory } from './session-token-history.js';

/** Token-faithful counters on /healthz: how calls were rendered, and why the fresh ones were. */
export interface TokenFaithfulCounters {
  /** the model family outputs are read as, and its parsers (docs/model-families.md) */
  readonly family: {
    readonly name: string;
    readonly reasoningParser: string;
    readonly toolCallParser: string;
    /** set when the family's own renderer renders the prompts instead of the model folder's template (`deepseek-v32-encoding`) */
    readonly renderer?: string;
  };
  /** calls that extended an earlier call of their session */
  extend: number;
  /** calls rendered whole (first call of a session, edited history, ...) */
  fresh: number;
  /** calls of a covered model that went to the chat endpoint instead (rendering failed, prefill) */
  plain: number;
  /** fresh and plain calls by reason */
  reasons: Record<string, number>;
  /** token ids held in the session histories now */
  readonly historyTokens: number;
}

/** @example const counters = tokenFaithfulCounters(history, { name: 'qwen3', reasoningParser: 'qwen3', toolCallParser: 'hermes' }) */
export function tokenFaithfulCounters(history: SessionTokenHistory, family: TokenFaithfulCounters['family']): TokenFaithfulCounters {
  return {
    family,
    extend: 0,
    fresh: 0,
    plain: 0,
    reasons: {},
    get historyTokens() {
      return history.tokenCount;
    },
  };
}

/** @example countPlan(counters, plan) */
export function countPlan(counters: TokenFaithfulCounters, plan: PromptPlan): void {
  if (plan.mode === 'extend') {
    counters.extend++;
    return;
  }
  counters.fresh++;
  counters.reasons[plan.reason] = (counters.reasons[plan.reason] ?? 0) + 1;
}
