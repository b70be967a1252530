import { findExtendedCall, type FreshReason } from './find-extended-call.js';
import { requestKeys } from './history-entry.js';
import type { PromptRenderer, PromptRequest } from './prompt-renderer.js';
import type { SessionTokenHistory } from './session-token-history.js';

/** The prompt of one token-faithful call and how it came about. */
export type PromptPlan = {
  promptIds: number[];
  /** prefix hashes of the request's messages, kept with the call once it is answered */
  hashes: string[];
  /** the request's render settings (model, tools, template switches), joined */
  settings: string;
} & (
  | { mode: 'extend'; extendsCallId: string; newTokenCount: number }
  | { mode: 'fresh'; reason: FreshReason; againstCallId?: string; divergedAt?: number }
);

export interface PlanPromptInput {
  history: SessionTokenHistory;
  renderer: PromptRenderer;
  sessionId: string;
  request: PromptRequest;
  signal: AbortSignal;
}

/**
 * Decides a token-faithful call's prompt ids. When the request extends an earlier call of the session
 * (find-extended-call.ts), the prompt is that call's prompt ids + its completion ids + the ids of just the new
 * messages, so the prompt starts with everything the earlier call saw and sampled, token for token. Otherwise the
 * whole conversation is rendered fresh, and the plan says why.
 *
 * @example const plan = await planPrompt({ history, renderer, sessionId: 'run-1', request, signal });
 */
export async function planPrompt(input: PlanPromptInput): Promise<PromptPlan> {
  const { request, renderer, signal } = input;
  // the keys the call is remembered with once answered (history-entry.ts), and rebuilt with from the store
  const { hashes, settings } = requestKeys(request);
  const match = findExtendedCall(input.history.entries(input.sessionId), hashes, settings);
  if (match.kind === 'extend') {
    const { entry } = match;
    const newIds = await renderer.renderAfterTurn(request, entry.prefixHashes.length, entry.endOfTurnId!, signal);
    if (newIds !== null) {
      const promptIds = [...entry.promptIds, ...entry.completionIds, ...newIds];
      return { mode: 'extend', extendsCallId: entry.callId, newTokenCount: newIds.length, promptIds, hashes, settings };
    }
    const promptIds = await renderer.renderFull(request, signal);
    return { mode: 'fresh', reason: 'end-of-turn-not-found', againstCallId: entry.callId, promptIds, hashes, settings };
  }
  const promptIds = await renderer.renderFull(request, signal);
  const { kind: _kind, ...why } = match;
  return { mode: 'fresh', ...why, promptIds, hashes, settings };
}
