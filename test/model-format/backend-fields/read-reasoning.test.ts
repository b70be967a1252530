import { describe, expect, it } from 'vitest';
import { readReasoning, writeReasoning } from '../../../model-format/backend-fields/read-reasoning.js';

describe('readReasoning', () => {
  it('reads `reasoning` (vLLM since PR #27752), else `reasoning_content` (vLLM before it, SGLang)', () => {
    expect(readReasoning({ role: 'assistant', reasoning: 'new', reasoning_content: 'old' })).toBe('new');
    expect(readReasoning({ role: 'assistant', reasoning_content: 'old' })).toBe('old');
    expect(readReasoning({ role: 'assistant', reasoning: null, reasoning_content: 'old' })).toBe('old');
  });

  it('keeps an empty string, and is null when neither name holds a string', () => {
    expect(readReasoning({ reasoning: '', reasoning_content: 'old' })).toBe('');
    expect(readReasoning({ role: 'assistant', content: 'Hi' })).toBeNull();
    expect(readReasoning({ reasoning: null, reasoning_content: 42 })).toBeNull();
  });
});

describe('writeReasoning', () => {
  it('puts the text under both names, `reasoning` first', () => {
    const message: Record<string, unknown> = { role: 'assistant', content: '' };
    writeReasoning(message, 'Two calls.');
    expect(message).toEqual({ role: 'assistant', content: '', reasoning: 'Two calls.', reasoning_content: 'Two calls.' });
    expect(Object.keys(message)).toEqual(['role', 'content', 'reasoning', 'reasoning_content']);
  });
});
