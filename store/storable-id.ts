import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Refuses an id (a session's, a call's, a group's) that one of the engines cannot store as it is: PostgreSQL's TEXT
 * cannot hold U+0000, and an id, unlike a free text (well-formed-text.ts), cannot be changed without becoming
 * another. Refused on both engines, so an id written to one can be copied to the other. The gateway's own ids
 * never hold one (gateway/sessions/resolve-session.ts); this guards the library API.
 *
 * @example assertStorableId(input.sessionId, 'session id'); // throws STORE_INVALID_INPUT for 'a\u0000'
 */
export function assertStorableId(id: string, what: string): void {
  if (id.includes('\u0000')) {
    throw new TokentapError('STORE_INVALID_INPUT', { message: `a ${what} cannot hold U+0000 (NUL): ${JSON.stringify(id.slice(0, 140))}` });
  }
}

/** False for an id no engine stores (assertStorableId): a filter naming one matches nothing. @example ids.filter(isStorableId) */
export function isStorableId(id: string): boolean {
  return !id.includes('\u0000');
}
