import { describe, expect, it } from 'vitest';
import { applyThinkingSwitch, enableThinkingFor } from '../../../gateway/backends/thinking-switch.js';
import { prepareChatRequest } from '../../../gateway/backends/vllm-chat-request.js';

describe('the thinking-switch table', () => {
  it('maps each protocol switch to enable_thinking', () => {
    expect(enableThinkingFor({ protocol: 'anthropic', thinking: { type: 'enabled', budget_tokens: 1024 } })).toBe(true);
    expect(enableThinkingFor({ protocol: 'anthropic', thinking: { type: 'adaptive' } })).toBe(true);
    expect(enableThinkingFor({ protocol: 'anthropic', thinking: { type: 'disabled' } })).toBe(false);
    expect(enableThinkingFor({ protocol: 'anthropic', thinking: undefined })).toBeUndefined();
    expect(enableThinkingFor({ protocol: 'responses', reasoning: { effort: 'minimal' } })).toBe(false);
    expect(enableThinkingFor({ protocol: 'responses', reasoning: { effort: 'high' } })).toBe(true);
    expect(enableThinkingFor({ protocol: 'chat', reasoningEffort: 'none' })).toBe(false);
    expect(enableThinkingFor({ protocol: 'chat', reasoningEffort: 'medium' })).toBe(true);
    expect(enableThinkingFor({ protocol: 'chat', reasoningEffort: 'bogus' })).toBeUndefined();
  });

  it('never overrides a template switch the harness set itself', () => {
    const body: Record<string, unknown> = { chat_template_kwargs: { enable_thinking: true, other: 1 } };
    applyThinkingSwitch(body, false);
    expect(body.chat_template_kwargs).toEqual({ enable_thinking: true, other: 1 });
  });

  it('sets enable_thinking from a chat reasoning_effort and keeps the field', () => {
    const { backendBody } = prepareChatRequest({ messages: [], reasoning_effort: 'minimal' }, { topLogprobs: 0 });
    expect(backendBody).toMatchObject({ reasoning_effort: 'minimal', chat_template_kwargs: { enable_thinking: false } });
    expect(prepareChatRequest({ messages: [] }, { topLogprobs: 0 }).backendBody).not.toHaveProperty('chat_template_kwargs');
  });
});
