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

/**
 * The id of a tool call the backend sent without one: derived from the message id and the call's position,
 * still stable between a stream and a whole body of the same answer.
 *
 * @example toolUseId(undefined, 'msg_chatcmpl-1', 0) // 'toolu_…'
 */
export function toolUseId(backendToolId: string | undefined, messageId: string, position: number): string {
  return anthropicId('toolu_', backendToolId ?? `${messageId}:${position}`);
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
