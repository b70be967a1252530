import { describe, expect, it } from 'vitest';
import { canonicalMessage, prefixHashes } from '../../gateway/token-faithful/conversation-hashes.js';
import { findExtendedCall } from '../../gateway/token-faithful/find-extended-call.js';
import { SessionTokenHistory, type TokenHistoryEntry } from '../../gateway/token-faithful/session-token-history.js';

function entry(callId: string, messages: Array<Record<string, unknown>>, tokens = 10, settings = 's'): TokenHistoryEntry {
  return { callId, prefixHashes: prefixHashes(messages), settings, promptIds: Array<number>(tokens).fill(1), completionIds: [2, 3], endOfTurnId: 3 };
}

const USER = { role: 'user', content: 'Hi' };
const ASSISTANT = {
  role: 'assistant',
  content: 'Hello',
  tool_calls: [{ id: 'a', type: 'function', function: { name: 'ls', arguments: '{"path": ".", "all": true}' } }],
};

describe('the extension rule', () => {
  it('compares messages as the template sees them: reasoning, tool-call ids, argument spacing and key order, edge whitespace ignored', () => {
    const resent = {
      role: 'assistant',
      content: [{ type: 'text', text: '\n\nHello\n' }],
      reasoning: 'thought',
      tool_calls: [{ id: 'toolu_b', type: 'function', function: { name: 'ls', arguments: '{"all":true,"path":"."}' } }],
    };
    expect(canonicalMessage(resent)).toBe(canonicalMessage(ASSISTANT));
    expect(canonicalMessage({ role: 'user', content: null })).toBe(canonicalMessage({ role: 'user', content: '' }));
    expect(canonicalMessage({ ...ASSISTANT, content: 'Hello!' })).not.toBe(canonicalMessage(ASSISTANT));
    expect(canonicalMessage({ role: 'user', content: ' Hi' })).not.toBe(canonicalMessage(USER));
  });

  it('picks the call covering the most messages, and needs at least one new message', () => {
    const short = entry('short', [USER, ASSISTANT]);
    const long = entry('long', [USER, ASSISTANT, { role: 'tool', content: 'x' }, ASSISTANT]);
    const next = prefixHashes([USER, ASSISTANT, { role: 'tool', content: 'x' }, ASSISTANT, { role: 'tool', content: 'y' }]);
    expect(findExtendedCall([long, short], next, 's')).toMatchObject({ kind: 'extend', entry: { callId: 'long' } });
    expect(findExtendedCall([short], prefixHashes([USER, ASSISTANT]), 's')).toMatchObject({ kind: 'fresh', reason: 'history-edited', divergedAt: 2 });
    expect(findExtendedCall([], next, 's')).toEqual({ kind: 'fresh', reason: 'first-call' });
  });
});

describe('the session token history', () => {
  it('keeps the newest calls per session and evicts the least recently used session over the token budget', () => {
    const history = new SessionTokenHistory({ callsPerSession: 2, maxTokens: 40 });
    for (const callId of ['a1', 'a2', 'a3']) history.remember('a', entry(callId, [USER]));
    expect(history.entries('a').map((kept) => kept.callId)).toEqual(['a2', 'a3']);
    expect(history.tokenCount).toBe(24);
    history.remember('b', entry('b1', [USER]));
    history.entries('a');
    history.remember('c', entry('c1', [USER]));
    expect(history.entries('b')).toEqual([]);
    expect(history.entries('a')).toHaveLength(2);
    expect(history.tokenCount).toBe(36);
  });
});

describe('restoring a session history from the store', () => {
  it('merges the store window after what memory keeps, knows every listed call, and trims to the newest calls', () => {
    const history = new SessionTokenHistory({ callsPerSession: 3, maxTokens: 1000 });
    history.remember('s', entry('old', [USER]));
    history.remember('s', entry('mine', [USER]));
    // the store's newest calls, oldest first: 'mine' is kept already, 'other' came from another gateway, 'empty' gave no entry
    history.restore('s', ['mine', 'empty', 'other'], new Map([['other', entry('other', [USER])]]));
    expect(history.entries('s').map((kept) => kept.callId)).toEqual(['old', 'mine', 'other']);
    expect(history.tokenCount).toBe(36);
    for (const callId of ['old', 'mine', 'empty', 'other']) expect(history.knows('s', callId)).toBe(true);
    expect(history.knows('s', 'newer')).toBe(false);
    expect(history.knows('t', 'mine')).toBe(false);
    history.restore('s', ['other', 'newer'], new Map([['newer', entry('newer', [USER])]]));
    expect(history.entries('s').map((kept) => kept.callId)).toEqual(['mine', 'other', 'newer']);
    expect(history.tokenCount).toBe(36);
  });

  it('keeps one entry per call when a call is both read back and remembered live', () => {
    const history = new SessionTokenHistory({ callsPerSession: 4, maxTokens: 1000 });
    history.restore('s', ['a'], new Map([['a', entry('a', [USER])]]));
    history.remember('s', entry('a', [USER], 20));
    expect(history.entries('s').map((kept) => [kept.callId, kept.promptIds.length])).toEqual([['a', 20]]);
    expect(history.tokenCount).toBe(22);
  });
});
