import { isRecord } from '../../core/json/is-record.js';
import type { Store } from '../../store/types.js';
import { requestKeys, tokenHistoryEntry } from './history-entry.js';
import { promptRequestFrom } from './prompt-renderer.js';
import type { SessionTokenHistory, TokenHistoryEntry } from './session-token-history.js';

/** What the rebuild reads: the session's newest token-faithful `ok` calls, each call's row and bodies. */
export type TokenHistoryStore = Pick<Store, 'listTokenFaithfulCallIds' | 'getCall' | 'getCallBodies'>;

/**
 * Brings a session's history up to date with the store before a call is planned: the store lists the session's
 * newest calls that ended `ok` with a token-faithful prompt (as many as the history keeps per session), and each one
 * the history has not seen (a restart emptied it, another gateway on the database served it, the session was
 * evicted) is read back and rebuilt into the entry it gave live (history-entry.ts). One indexed query when nothing
 * is missing. A call in progress, failed or aborted is never listed: no call is extended whose end is not committed.
 * Returns how many entries were rebuilt.
 *
 * @example restoreTokenHistory(history, store, 'run-1') // 3 after a restart in the middle of a 3-call session
 */
export function restoreTokenHistory(history: SessionTokenHistory, store: TokenHistoryStore, sessionId: string): number {
  const newestFirst = store.listTokenFaithfulCallIds(sessionId, history.limits.callsPerSession);
  const missing = newestFirst.filter((callId) => !history.knows(sessionId, callId));
  if (missing.length === 0) return 0;
  const rebuilt = new Map<string, TokenHistoryEntry>();
  // oldest first: each call's prompt is stored against its parent's ids, which the reader then has at hand
  for (const callId of missing.reverse()) {
    const entry = storedHistoryEntry(store, callId);
    if (entry !== null) rebuilt.set(callId, entry);
  }
  history.restore(sessionId, [...newestFirst].reverse(), rebuilt);
  return rebuilt.size;
}

/** The entry a stored token-faithful call gave when it was answered; null when it kept no ids or chat request. */
export function storedHistoryEntry(store: Pick<Store, 'getCall' | 'getCallBodies'>, callId: string): TokenHistoryEntry | null {
  const call = store.getCall(callId);
  const bodies = store.getCallBodies(callId, { lazy: true });
  if (call === null || bodies === null || call.status !== 'ok' || !isRecord(bodies.chatRequestBody)) return null;
  return tokenHistoryEntry({
    callId,
    keys: requestKeys(promptRequestFrom(bodies.chatRequestBody)),
    responseBody: bodies.responseBody,
    tokens: {
      promptTokenIds: call.promptTokenIds === null ? null : Array.from(call.promptTokenIds),
      completionTokenIds: call.completionTokenIds === null ? null : Array.from(call.completionTokenIds),
      finishReason: call.finishReason,
      stopReason: call.stopReason,
    },
  });
}
