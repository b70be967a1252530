import type { TokenHistoryEntry } from './session-token-history.js';

/** Why a call was rendered fresh instead of extending an earlier one. */
export type FreshReason =
  /** the session has no earlier call, in memory or in the store (restore-token-history.ts): its first call */
  | 'first-call'
  /** no earlier call shares even the first message (another agent, a sub-agent, a side request) */
  | 'unrelated-history'
  /** an earlier call shares the start, but a message of it (or the assistant answer) was changed, dropped or added */
  | 'history-edited'
  /** the history matches, but the model, tools, template switches or template differ */
  | 'settings-changed'
  /** the history matches, but that call's completion did not end its turn (max tokens, a stop string) */
  | 'earlier-completion-cut'
  /** the chat template wrote no end-of-turn token where the earlier turn ended */
  | 'end-of-turn-not-found';

export type ExtensionMatch =
  { kind: 'extend'; entry: TokenHistoryEntry } | { kind: 'fresh'; reason: FreshReason; againstCallId?: string; divergedAt?: number };

/**
 * The extension rule (docs/token-faithful.md): a request extends an earlier call of its session when that call's
 * messages followed by the assistant message it returned are a prefix of the request's messages, at least one
 * message follows, the render settings are the same and the earlier completion ended its turn. Of several such
 * calls the one covering the most messages wins (the newest on a tie). Otherwise says why not, naming the call
 * that came closest.
 *
 * @example findExtendedCall(history.entries('run-1'), prefixHashes(messages), settings)
 */
export function findExtendedCall(entries: readonly TokenHistoryEntry[], hashes: readonly string[], settings: string): ExtensionMatch {
  if (entries.length === 0) return { kind: 'fresh', reason: 'first-call' };
  let best: TokenHistoryEntry | null = null;
  let blocked: { entry: TokenHistoryEntry; reason: FreshReason } | null = null;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    const length = entry.prefixHashes.length;
    if (length >= hashes.length || hashes[length - 1] !== entry.prefixHashes[length - 1]) continue;
    const reason = entry.settings !== settings ? 'settings-changed' : entry.endOfTurnId === null ? 'earlier-completion-cut' : null;
    if (reason === null) {
      if (best === null || length > best.prefixHashes.length) best = entry;
    } else if (blocked === null || length > blocked.entry.prefixHashes.length) {
      blocked = { entry, reason };
    }
  }
  if (best !== null) return { kind: 'extend', entry: best };
  if (blocked !== null) return { kind: 'fresh', reason: blocked.reason, againstCallId: blocked.entry.callId };
  return closestMiss(entries, hashes);
}

/** No call's history is a prefix: the newest call sharing the longest start, and where the two part. */
function closestMiss(entries: readonly TokenHistoryEntry[], hashes: readonly string[]): ExtensionMatch {
  let closest: { entry: TokenHistoryEntry; shared: number } | null = null;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    const shared = sharedLength(entry.prefixHashes, hashes);
    if (closest === null || shared > closest.shared) closest = { entry, shared };
  }
  if (closest === null || closest.shared === 0) return { kind: 'fresh', reason: 'unrelated-history' };
  return { kind: 'fresh', reason: 'history-edited', againstCallId: closest.entry.callId, divergedAt: closest.shared };
}

/** How many leading messages two conversations share (prefix hashes are equal up to there, then differ). */
function sharedLength(left: readonly string[], right: readonly string[]): number {
  let low = 0;
  let high = Math.min(left.length, right.length);
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (left[middle - 1] === right[middle - 1]) low = middle;
    else high = middle - 1;
  }
  return low;
}
