import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Every session key starts with this, so a gateway can tell one from a harness's own placeholder key. */
export const SESSION_KEY_PREFIX = 'tt-';

/** 32 random bytes: 256 bits, well above the 128 the issue asks for. */
const SESSION_KEY_BYTES = 32;

/**
 * A new session key: `tt-` and 43 base64url characters. It is handed out once; the store keeps only its hash.
 *
 * @example createSessionKey() // 'tt-Jq3...'
 */
export function createSessionKey(): string {
  return SESSION_KEY_PREFIX + randomBytes(SESSION_KEY_BYTES).toString('base64url');
}

/** @example isSessionKey('tt-Jq3...') // true; isSessionKey('sk-ant-...') // false */
export function isSessionKey(value: string): boolean {
  return value.startsWith(SESSION_KEY_PREFIX) && value.length > SESSION_KEY_PREFIX.length;
}

/**
 * What the store keeps of a key: its sha256. A key has 256 random bits, so a plain hash is enough (no salt or
 * stretching: those defend guessable passwords).
 *
 * @example store.findSessionByKeyHash(hashSessionKey(key))
 */
export function hashSessionKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The credential a client sent the way its SDK sends an API key: `Authorization: Bearer ...` (OpenAI clients)
 * or `x-api-key` (Anthropic clients).
 *
 * @example presentedCredential({ authorization: 'Bearer tt-abc' }) // 'tt-abc'
 */
export function presentedCredential(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headerValue(headers, 'authorization');
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(.+)$/i.exec(authorization.trim())?.[1];
  const credential = bearer ?? headerValue(headers, 'x-api-key');
  return credential === undefined || credential === '' ? undefined : credential;
}

/**
 * Compares a presented secret with the configured one in constant time. Both are hashed first, so the comparison
 * takes the same time whatever their lengths (timingSafeEqual itself needs equal lengths).
 *
 * @example isSameSecret(presentedCredential(request.headers) ?? '', config.adminToken)
 */
export function isSameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}
