import { describe, expect, it } from 'vitest';
import { harnessMetadata, resolveSession } from '../../../gateway/sessions/resolve-session.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';

describe('session attribution', () => {
  const allHeaders = { 'x-tokentap-session': 'from-header', 'x-claude-code-session-id': 'cc-1', 'session-id': 'codex-1', 'thread-id': 'thread-1' };

  it('takes the path first, then x-tokentap-session, then the harness header, then default', () => {
    expect(resolveSession('from-path', allHeaders)).toEqual({ sessionId: 'from-path', source: 'path' });
    expect(resolveSession(undefined, allHeaders)).toEqual({ sessionId: 'from-header', source: 'header' });
    const { 'x-tokentap-session': _, ...harnessOnly } = allHeaders;
    expect(resolveSession(undefined, harnessOnly)).toEqual({ sessionId: 'cc-1', source: 'claude-code' });
    expect(resolveSession(undefined, { 'session-id': 'codex-1', 'thread-id': 't' })).toEqual({ sessionId: 'codex-1', source: 'codex' });
    expect(resolveSession(undefined, { 'thread-id': 'thread-1' })).toEqual({ sessionId: 'thread-1', source: 'codex' });
    expect(resolveSession(undefined, {})).toEqual({ sessionId: 'default', source: 'default' });
  });

  it('rejects a malformed explicit session id instead of guessing', () => {
    expect(() => resolveSession('a/b', {})).toThrow(TokentapError);
    expect(() => resolveSession(undefined, { 'x-tokentap-session': 'x'.repeat(129) })).toThrow(/Invalid session id/);
    // `.` and `..` alone would name this or the parent folder to any code that joins ids into paths
    for (const id of ['.', '..']) expect(() => resolveSession(undefined, { 'x-tokentap-session': id })).toThrow(/Invalid session id/);
    expect(resolveSession('...', {})).toEqual({ sessionId: '...', source: 'path' });
    expect(resolveSession('v1.2', {})).toEqual({ sessionId: 'v1.2', source: 'path' });
  });

  it("falls through a harness header that does not fit, since that is not the user's mistake", () => {
    expect(resolveSession(undefined, { 'x-claude-code-session-id': 'has spaces' })).toEqual({ sessionId: 'default', source: 'default' });
  });

  it('keeps harness headers as metadata and never keys', () => {
    const metadata = harnessMetadata({
      'user-agent': 'claude-cli/2.1.197',
      'x-openai-subagent': 'review',
      'x-client-request-id': 'r1',
      authorization: 'Bearer sk-1',
      'x-api-key': 'k',
      cookie: 'c',
    });
    expect(metadata).toEqual({ 'user-agent': 'claude-cli/2.1.197', 'x-openai-subagent': 'review', 'x-client-request-id': 'r1' });
  });
});
