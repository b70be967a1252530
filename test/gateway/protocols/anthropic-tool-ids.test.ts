import { describe, expect, it } from 'vitest';
import { backendToolCallId, toolUseId } from '../../../gateway/protocols/anthropic-messages/anthropic-ids.js';
import { toChatRequest } from '../../../gateway/protocols/anthropic-messages/anthropic-chat-request.js';
import { toAnthropicMessage } from '../../../gateway/protocols/anthropic-messages/anthropic-message-body.js';
import { AnthropicStreamEvents } from '../../../gateway/protocols/anthropic-messages/anthropic-stream-events.js';
import { parseAnthropicBody } from '../../../gateway/protocols/anthropic-messages/anthropic-messages-schema.js';

// Kimi K2 names its calls `functions.NAME:IDX` and its templates answer a call by that id (`## Return of ID`); a
// tool_use id may hold only [A-Za-z0-9_-], so the id the client is handed must come back as the model's
const KIMI_ID = 'functions.read_file:0';
const CHAT_COMPLETION = {
  id: 'chatcmpl-1',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: KIMI_ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
};

describe("Anthropic tool_use ids of backend ids outside Anthropic's alphabet", () => {
  it('hands out an id in the alphabet, the same in a whole body and in a stream', () => {
    const body = toAnthropicMessage(CHAT_COMPLETION, { model: 'claude-x', stopSequences: [] }) as { content: Array<{ type: string; id?: string }> };
    const whole = body.content.find((block) => block.type === 'tool_use')!.id!;
    expect(whole).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
    const stream = new AnthropicStreamEvents({ model: 'claude-x', stopSequences: [] });
    const text = stream.chunk({
      id: 'chatcmpl-1',
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', tool_calls: [{ index: 0, id: KIMI_ID, type: 'function', function: { name: 'read_file', arguments: '' } }] },
        },
      ],
    });
    expect(text).toContain(`"id":"${whole}"`);
  });

  it("reads the backend's id back from tool_use and tool_result blocks, so the template writes the model's own", () => {
    const id = toolUseId(KIMI_ID, 'msg_1', 0);
    const { chatBody } = toChatRequest(
      parseAnthropicBody(
        {
          model: 'claude-x',
          max_tokens: 10,
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: 'a' } }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'A' }] },
          ],
        },
        'messages',
      ),
    );
    expect(chatBody.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ id: KIMI_ID, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: KIMI_ID, content: 'A' },
    ]);
  });

  it("leaves every other id as sent: tokentap's readable ones, a client's own, and look-alikes it did not write", () => {
    expect(toolUseId('chatcmpl-tool-4f2a', 'msg_1', 0)).toBe('toolu_chatcmpl-tool-4f2a');
    for (const sent of [
      'toolu_chatcmpl-tool-4f2a',
      'toolu_01A09q90qw90lq917835lq9',
      'toolu_b64_YWJj',
      'toolu_b64_ZnVuY3Rpb25zLmE6MA=',
      'toolu_b64_',
    ]) {
      expect(backendToolCallId(sent)).toBe(sent);
    }
    // 'abc' is in the alphabet, so toolUseId would have kept it readable: not one it wrote
    expect(backendToolCallId(toolUseId('functions.a:0', 'msg_1', 0))).toBe('functions.a:0');
    expect(backendToolCallId(toolUseId('ünïcode id', 'msg_1', 0))).toBe('ünïcode id');
  });

  it('hashes an id too long to write back within 200 characters, as before', () => {
    const long = `functions.${'x'.repeat(200)}:0`;
    expect(toolUseId(long, 'msg_1', 0)).toMatch(/^toolu_[0-9a-f]{24}$/);
  });
});
