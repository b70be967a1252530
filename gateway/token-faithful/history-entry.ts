import { isRecord } from '../../core/json/is-record.js';
import type { ChatTokenRecord } from '../backends/chat-token-record.js';
import { canonicalMessage, extendPrefixHash, prefixHashes, renderSettingsKey } from './conversation-hashes.js';
import type { PromptRequest } from './prompt-renderer.js';
import type { TokenHistoryEntry } from './session-token-history.js';

/** What a request is matched on: the prefix hashes of its messages and its render settings, joined. */
export interface RequestKeys {
  hashes: string[];
  settings: string;
}

/** One answered token-faithful call, as the live pipeline holds it or as the store read it back. */
export interface AnsweredCall {
  callId: string;
  /** requestKeys of the chat request its prompt was rendered from */
  keys: RequestKeys;
  /** the chat-shaped response body, the one the store keeps (`choices[0].message` is the assistant turn) */
  responseBody: unknown;
  tokens: {
    promptTokenIds: readonly number[] | null;
    completionTokenIds: readonly number[] | null;
    finishReason: ChatTokenRecord['finishReason'];
    stopReason: ChatTokenRecord['stopReason'];
  };
}

/**
 * The keys a request is matched on (find-extended-call.ts), and that a call is remembered with.
 *
 * @example const { hashes, settings } = requestKeys(promptRequestFrom(chatBody));
 */
export function requestKeys(request: PromptRequest): RequestKeys {
  return { hashes: prefixHashes(request.messages), settings: JSON.stringify(renderSettingsKey(request)) };
}

/**
 * What the session history keeps of an answered call: the one function both the live pipeline (the call just
 * answered) and the rebuild from the store (restore-token-history.ts) go through, so a call read back gives the
 * entry it gave live. Null when the backend returned no ids (nothing to extend).
 *
 * @example history.remember(sessionId, tokenHistoryEntry({ callId, keys, responseBody, tokens })!)
 */
export function tokenHistoryEntry(call: AnsweredCall): TokenHistoryEntry | null {
  const { promptTokenIds, completionTokenIds } = call.tokens;
  if (promptTokenIds === null || completionTokenIds === null) return null;
  const assistantHash = extendPrefixHash(call.keys.hashes.at(-1) ?? '', canonicalMessage(assistantMessageOf(call.responseBody)));
  return {
    callId: call.callId,
    prefixHashes: [...call.keys.hashes, assistantHash],
    settings: call.keys.settings,
    promptIds: promptTokenIds,
    completionIds: completionTokenIds,
    endOfTurnId: endOfTurnId(call.tokens),
  };
}

/** The assistant message the harness was answered with: choice 0's message of the chat-shaped body. */
function assistantMessageOf(responseBody: unknown): Record<string, unknown> {
  const choices = isRecord(responseBody) ? responseBody.choices : undefined;
  const choice = Array.isArray(choices) ? choices.find((each) => isRecord(each) && (each.index ?? 0) === 0) : undefined;
  return isRecord(choice) && isRecord(choice.message) ? choice.message : { role: 'assistant', content: null };
}

/**
 * The sampled id that ended the turn: the EOS (stop_reason null on vLLM; SGLang names it, `matched` = the EOS id) or
 * a stop token id, which vLLM keeps in `token_ids` and SGLang in `output_ids` (`output_ids_through_stop`: "stop
 * position is included"). A stop string is not one id, and max tokens cut the turn: neither can be extended.
 */
function endOfTurnId(tokens: AnsweredCall['tokens']): number | null {
  const last = tokens.completionTokenIds?.at(-1);
  if (last === undefined || tokens.finishReason !== 'stop') return null;
  if (tokens.stopReason === null || tokens.stopReason === last) return last;
  return null;
}
