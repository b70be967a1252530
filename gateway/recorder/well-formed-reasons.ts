import type { ChatTokenRecord } from '../backends/chat-token-record.js';

/**
 * The backend's `finish_reason` and `stop_reason` (vLLM's matched stop string) are stored as columns of their own.
 * A lone UTF-16 surrogate in one (a Python backend's `json.dumps` writes `"\udc80"` for a str holding one) would
 * reach SQLite as bytes that are not UTF-8, and Python's sqlite3 could not read the table (issue 12). Each is made
 * well-formed, a lone surrogate becoming U+FFFD as a TextDecoder makes bytes that are not UTF-8, and the call is
 * flagged `backend_text_not_unicode`. The recorded bodies and stream keep what the backend sent: they are JSON text,
 * where the surrogate stays the escape it came as.
 *
 * @example wellFormedReasons({ ...tokens, stopReason: '\udc80' }) // { ...tokens, stopReason: '\ufffd', flags: [..., 'backend_text_not_unicode'] }
 */
export function wellFormedReasons(tokens: ChatTokenRecord): ChatTokenRecord {
  const { finishReason, stopReason } = tokens;
  const finishBad = finishReason !== null && !finishReason.isWellFormed();
  const stopBad = typeof stopReason === 'string' && !stopReason.isWellFormed();
  if (!finishBad && !stopBad) return tokens;
  return {
    ...tokens,
    finishReason: finishBad ? finishReason.toWellFormed() : finishReason,
    stopReason: stopBad ? stopReason.toWellFormed() : stopReason,
    flags: [...tokens.flags, 'backend_text_not_unicode'],
  };
}
