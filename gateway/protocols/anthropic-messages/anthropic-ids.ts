import { createHash } from 'node:crypto';

/** Anthropic's id alphabet (`tool_use.id` must match `^[a-zA-Z0-9_-]+$`). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

function digest(text: string, encoding: 'hex' | 'base64'): string {
  return createHash('sha256').update(text).digest(encoding);
}

/**
 * An Anthropic id (`msg_…`, `toolu_…`) derived from the backend's own id, so the same backend answer gets the
 * same id in a stream, in a whole body and in the recorded response. Safe ids are kept readable (the backend id
 * follows the prefix); anything else is hashed.
 *
 * @example anthropicId('toolu_', 'chatcmpl-tool-4f2a') // 'toolu_chatcmpl-tool-4f2a'
 */
export function anthropicId(prefix: string, backendId: string): string {
  return SAFE_ID.test(backendId) ? `${prefix}${backendId}` : `${prefix}${digest(backendId, 'hex').slice(0, 24)}`;
}

// a backend tool id outside Anthropic's alphabet, written reversibly (base64url) after this mark
const ENCODED_TOOL_ID = 'toolu_b64_';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The `tool_use.id` of a tool call: `toolu_` and the backend's id when that is in Anthropic's alphabet; else (Kimi K2's
 * `functions.NAME:IDX`) the backend's id in base64url after `toolu_b64_`, which `backendToolCallId` reads back, so the
 * model gets its own id again in the history and in its results (Kimi's templates write `## Return of ID`, and Kimi
 * answers a call by it). An id too long for that is hashed, as is a call the backend sent without one (from the message
 * id and the call's position): both still stable between a stream and a whole body of the same answer.
 *
 * @example toolUseId('functions.read_file:0', 'msg_1', 0) // 'toolu_b64_ZnVuY3Rpb25zLnJlYWRfZmlsZTow'
 */
export function toolUseId(backendToolId: string | undefined, messageId: string, position: number): string {
  if (backendToolId !== undefined && !SAFE_ID.test(backendToolId)) {
    const encoded = `${ENCODED_TOOL_ID}${Buffer.from(backendToolId, 'utf8').toString('base64url')}`;
    if (encoded.length <= 200) return encoded;
  }
  return anthropicId('toolu_', backendToolId ?? `${messageId}:${position}`);
}

/**
 * The backend's id of a tool call from the `tool_use.id` (or `tool_result.tool_use_id`) the client sends back: the one
 * `toolUseId` wrote after `toolu_b64_`, else the id as sent (tokentap's readable `toolu_` + id, and any client's own,
 * go on unchanged).
 *
 * @example backendToolCallId('toolu_b64_ZnVuY3Rpb25zLnJlYWRfZmlsZTow') // 'functions.read_file:0'
 */
export function backendToolCallId(toolUseIdSent: string): string {
  if (!toolUseIdSent.startsWith(ENCODED_TOOL_ID)) return toolUseIdSent;
  const encoded = toolUseIdSent.slice(ENCODED_TOOL_ID.length);
  if (!BASE64URL.test(encoded)) return toolUseIdSent;
  const decoded = Buffer.from(encoded, 'base64url').toString('utf8');
  // only what toolUseId would have written: an id outside the alphabet, encoded back to the very same text
  const written = !SAFE_ID.test(decoded) && Buffer.from(decoded, 'utf8').toString('base64url') === encoded;
  return written ? decoded : toolUseIdSent;
}

/**
 * A thinking block's `signature`. Anthropic's SDK types require one and Claude Code sends thinking blocks back
 * with theirs; an open model has nothing to sign, so tokentap writes a deterministic digest of the text. It is
 * never checked when the block comes back (the reasoning text is what reaches the template).
 *
 * @example thinkingSignature('Let me look.') // 'tokentap.…'
 */
export function thinkingSignature(thinking: string): string {
  return `tokentap.${digest(`thinking\u0000${thinking}`, 'base64')}`;
}
