import type { CallRow } from '../store/index.js';
import { untrustedFlags } from '../store/types.js';
import { describeFailedCall, type CallErrorSummary } from './describe-failed-call.js';
import type { SampleStatus } from './sample.js';

/**
 * What reconstruction may do with one call:
 * - `chain`: status ok, backend ids, no untrusted flags, a completion with one logprob per id. Trainable and mergeable.
 * - `own`: the call failed (aborted, backend_error, incomplete) after the backend sent ids. Its own sample, with
 *   the status saying why and loss weight 0: the ids it has are exact, but the turn never finished.
 * - `retokenize`: the backend gave no ids (`tokenSource: 'none'`) and the caller passed a retokenizer.
 * - `skip`: nothing token-exact to train on (no ids yet, flagged ids, missing logprobs); reported with the reason,
 *   and for a call that failed with nothing to keep, the failure itself (its status, HTTP status and error).
 */
export type CallRole =
  | { kind: 'chain'; status: SampleStatus }
  | { kind: 'own'; status: SampleStatus }
  | { kind: 'retokenize' }
  | { kind: 'skip'; reason: string; error?: CallErrorSummary };

/**
 * @example
 * classifyCall(call, { canRetokenize: false }); // { kind: 'chain', status: 'completed' }
 */
export function classifyCall(call: CallRow, options: { canRetokenize: boolean }): CallRole {
  if (call.status === 'in_progress') return { kind: 'skip', reason: 'still in progress: no tokens yet' };
  if (call.tokenSource !== 'backend') {
    if (options.canRetokenize && call.status === 'ok') return { kind: 'retokenize' };
    // a 404 or an unreachable backend has no ids because the call failed: say so, not that ids were withheld
    if (call.status !== 'ok') return { kind: 'skip', ...describeFailedCall(call) };
    return { kind: 'skip', reason: 'the backend returned no token ids (tokenSource none)' };
  }
  // a flag means the recorded ids may not be what the backend conditioned on or sampled: never train on them
  // (a note such as token_faithful_fallback casts no doubt on them)
  const untrusted = untrustedFlags(call.flags);
  if (untrusted.length > 0) return { kind: 'skip', reason: `flagged ${untrusted.join(', ')}: ${whyUntrusted(untrusted)}` };
  if (call.promptTokenIds === null) return missingIds(call, 'no prompt ids recorded');
  const completion = call.completionTokenIds;
  if (completion === null || completion.length === 0) return missingIds(call, 'no completion ids recorded');
  if (call.completionLogprobs === null || call.completionLogprobs.length !== completion.length) {
    return { kind: 'skip', reason: 'no logprob for every completion id' };
  }
  if (call.status === 'ok') return { kind: 'chain', status: call.finishReason === 'length' ? 'truncated' : 'completed' };
  return { kind: 'own', status: call.status === 'aborted' ? 'aborted' : 'failed' };
}

/** A call short of ids: a successful one says which are missing, a failed one why it failed. */
function missingIds(call: CallRow, reason: string): CallRole {
  return { kind: 'skip', ...(call.status === 'ok' ? { reason } : describeFailedCall(call)) };
}

/**
 * True when the call's completion stopped before the model ended its turn (max tokens, abort, backend error),
 * so a later prompt cannot carry it on token for token.
 *
 * @example
 * isCutCompletion({ ...call, finishReason: 'length' }); // true
 */
export function isCutCompletion(call: CallRow): boolean {
  return call.status !== 'ok' || call.finishReason === 'length';
}

/** What the flags say: a weight version mismatch casts doubt on the tokens' policy, not on the ids themselves. */
function whyUntrusted(flags: readonly string[]): string {
  const reasons: string[] = [];
  if (flags.some((flag) => flag !== 'weight_version_mismatch')) reasons.push('its ids are not trusted');
  if (flags.includes('weight_version_mismatch'))
    reasons.push('the replica was not serving its policy version, so its tokens would be trained as the wrong policy');
  return reasons.join('; ');
}
