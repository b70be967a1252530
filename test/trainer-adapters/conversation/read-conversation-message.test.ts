import { describe, expect, it } from 'vitest';
import { readConversationMessage } from '../../../trainer-adapters/conversation/read-conversation-message.js';

describe('readConversationMessage', () => {
  it('joins text parts with "\\n" and reads null content as ""', () => {
    expect(
      readConversationMessage({
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ role: 'user', content: 'a\nb' });
    expect(readConversationMessage({ role: 'assistant', content: null })).toEqual({ role: 'assistant', content: '' });
  });

  it('reads a developer message as a system message', () => {
    expect(readConversationMessage({ role: 'developer', content: 'Be brief.' })).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it("takes the assistant's reasoning from `reasoning`, else `reasoning_content`, and leaves <think> in content alone", () => {
    expect(readConversationMessage({ role: 'assistant', content: 'x', reasoning: 'r1', reasoning_content: 'r2' })).toEqual({
      role: 'assistant',
      content: 'x',
      reasoning: 'r1',
    });
    expect(readConversationMessage({ role: 'assistant', content: 'x', reasoning_content: 'r2' })).toEqual({
      role: 'assistant',
      content: 'x',
      reasoning: 'r2',
    });
    expect(readConversationMessage({ role: 'assistant', content: '<think>r</think>x' })).toEqual({ role: 'assistant', content: '<think>r</think>x' });
  });

  it('keeps tool-call arguments text as sent and writes object arguments as JSON', () => {
    const message = readConversationMessage({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 1}' } },
        { type: 'function', function: { name: 'ls', arguments: { path: 'é/' } } },
      ],
    });
    expect(message?.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 1}' } },
      { id: '', type: 'function', function: { name: 'ls', arguments: '{"path":"é/"}' } },
    ]);
  });

  it('drops an empty tool_calls list', () => {
    expect(readConversationMessage({ role: 'assistant', content: 'x', tool_calls: [] })).toEqual({ role: 'assistant', content: 'x' });
  });

  it('keeps tool_call_id and name on tool messages only', () => {
    expect(readConversationMessage({ role: 'tool', content: '42', tool_call_id: 'c1', name: 'add' })).toEqual({
      role: 'tool',
      content: '42',
      tool_call_id: 'c1',
      name: 'add',
    });
    expect(readConversationMessage({ role: 'user', content: 'hi', name: 'ann' })).toEqual({ role: 'user', content: 'hi' });
  });

  it('refuses what text cannot carry: image parts, unknown roles, tool calls without a name', () => {
    expect(
      readConversationMessage({
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image_url', image_url: { url: 'data:' } },
        ],
      }),
    ).toBeNull();
    expect(readConversationMessage({ role: 'function', content: 'x' })).toBeNull();
    expect(readConversationMessage({ role: 'assistant', content: null, tool_calls: [{ type: 'function', function: {} }] })).toBeNull();
    expect(readConversationMessage('hi')).toBeNull();
  });
});
