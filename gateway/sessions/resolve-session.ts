import type { IncomingHttpHeaders } from 'node:http';
import { TokentapError } from '../../core/errors/tokentap-error.js';

/**
 * Session (and group) ids travel in URL paths and file names: a safe alphabet, and never `.` or `..` alone, which
 * path-joining code would read as this or the parent folder.
 */
export const SESSION_ID_PATTERN = /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,128}$/;

export const DEFAULT_SESSION_ID = 'default';

/** Where the session of a call came from, recorded with the call. */
export type SessionSource = 'path' | 'header' | 'claude-code' | 'codex' | 'default' | 'key';

/**
 * Harness headers, in order of precedence, that name a session without any change to the harness
 * (shared/reference/protocols-backends-gateways.md, D.6).
 */
const HARNESS_SESSION_HEADERS: ReadonlyArray<[header: string, source: SessionSource]> = [
  ['x-claude-code-session-id', 'claude-code'],
  ['session-id', 'codex'],
  ['session_id', 'codex'],
  ['thread-id', 'codex'],
];

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** @example isValidSessionId('run-42') // true */
export function isValidSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}

/**
 * Picks the session of a call: base-URL path `/s/{session}/v1/...`, then `x-tokentap-session`, then the
 * harness's own session header, then `default`. An explicit but malformed id is an error, not a fallback.
 *
 * @example resolveSession('run-42', request.headers) // { sessionId: 'run-42', source: 'path' }
 */
export function resolveSession(pathSession: string | undefined, headers: IncomingHttpHeaders): { sessionId: string; source: SessionSource } {
  const explicit: Array<[string | undefined, SessionSource]> = [
    [pathSession, 'path'],
    [headerValue(headers, 'x-tokentap-session'), 'header'],
  ];
  for (const [value, source] of explicit) {
    if (value === undefined || value === '') continue;
    if (!isValidSessionId(value)) {
      throw new TokentapError('TT_INVALID_SESSION', {
        message: `Invalid session id ${JSON.stringify(value.slice(0, 140))}: use 1-128 of A-Z a-z 0-9 . _ : -`,
      });
    }
    return { sessionId: value, source };
  }
  for (const [header, source] of HARNESS_SESSION_HEADERS) {
    const value = headerValue(headers, header);
    // a harness's own id that does not fit is not the user's mistake: fall through rather than fail the call
    if (value !== undefined && isValidSessionId(value)) return { sessionId: value, source };
  }
  return { sessionId: DEFAULT_SESSION_ID, source: 'default' };
}

/** Harness headers kept as call metadata. Authorization and API keys are never among them. */
const METADATA_HEADERS = [
  'user-agent',
  'x-tokentap-session',
  'x-claude-code-session-id',
  'x-app',
  'anthropic-version',
  'anthropic-beta',
  'session-id',
  'session_id',
  'thread-id',
  'x-openai-subagent',
  'x-client-request-id',
  'x-request-id',
  'originator',
  'openai-beta',
  'x-stainless-lang',
  'x-stainless-package-version',
] as const;

/** @example harnessMetadata(request.headers) // { 'user-agent': 'claude-cli/2.1.197', ... } */
export function harnessMetadata(headers: IncomingHttpHeaders): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const name of METADATA_HEADERS) {
    const value = headerValue(headers, name);
    if (value !== undefined) metadata[name] = value.slice(0, 512);
  }
  return metadata;
}
