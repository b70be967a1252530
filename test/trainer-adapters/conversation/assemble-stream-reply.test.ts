import { describe, expect, it } from 'vitest';
import { assembleStreamReply } from '../../../trainer-adapters/conversation/assemble-stream-reply.js';

function stream(deltas: unknown[]): string {
  const events = deltas.map((delta) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta }] })}\n\n`);
  return `${events.join('')}data: [DONE]\n\n`;
}

describe('assembleStreamReply', () => {
  it('joins content, reasoning and tool-call pieces by index', () => {
    const text = stream([
      { role: 'assistant', content: '' },
      { reasoning: 'I will ' },
      { reasoning: 'add.' },
      { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'add', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"a": ' } }] },
      { tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
    ]);
    expect(assembleStreamReply(text)).toEqual({
      role: 'assistant',
      content: '',
      reasoning: 'I will add.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 1}' } },
        { id: 'c2', type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    });
  });

  it('counts reasoning sent under both names once', () => {
    const text = stream([{ reasoning: 'a', reasoning_content: 'a' }, { reasoning: 'b', reasoning_content: 'b' }, { content: 'x' }]);
    expect(assembleStreamReply(text)).toEqual({ role: 'assistant', content: 'x', reasoning: 'ab' });
  });

  it('reads CRLF line ends, comments and multi-byte text', () => {
    const text = ': keep-alive\r\n\r\ndata: {"choices":[{"index":0,"delta":{"content":"é"}}]}\r\n\r\ndata: {"choices":[{"index":0,"delta":{"content":"🙂"}}]}\r\n\r\n';
    expect(assembleStreamReply(text)).toEqual({ role: 'assistant', content: 'é🙂' });
  });

  it('ignores other choices and returns null for a stream without chat deltas (a completions stream)', () => {
    expect(assembleStreamReply('data: {"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"}}]}\n\n')).toEqual({ role: 'assistant', content: 'yes' });
    expect(assembleStreamReply('data: {"choices":[{"index":0,"text":"hi","token_ids":[1]}]}\n\ndata: [DONE]\n\n')).toBeNull();
    expect(assembleStreamReply('')).toBeNull();
  });
});
