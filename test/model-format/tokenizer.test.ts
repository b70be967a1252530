import { describe, expect, it } from 'vitest';
import { createIncrementalDetokenizer } from '../../model-format/tokenizer/create-incremental-detokenizer.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { normalizeChatMessages, normalizeChatTools } from '../../model-format/chat-template/normalize-chat-messages.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../../model-format/chat-template/render-chat-template.js';

const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());

function render(messages: unknown[], options: { tools?: unknown[]; thinking?: boolean; continueFinal?: boolean } = {}): string {
  return renderChatTemplate({
    template: tokenizer.chatTemplate!,
    messages: normalizeChatMessages(messages),
    tools: normalizeChatTools(options.tools ?? []),
    addGenerationPrompt: options.continueFinal !== true,
    continueFinalMessage: options.continueFinal,
    extraContext: options.thinking === false ? { enable_thinking: false } : {},
    specialTokens: chatTemplateSpecialTokens(tokenizer),
  });
}

describe('loadHfTokenizer', () => {
  it('loads the bundled Qwen3 tokenizer once per folder and encodes without special tokens', async () => {
    expect(await loadHfTokenizer(qwen3TokenizerDir())).toBe(tokenizer);
    expect(tokenizer.encode('Hello')).toEqual([9707]);
    expect(tokenizer.encode('<|im_start|>user\n')).toEqual([151644, 872, 198]);
    expect(tokenizer.eosToken).toBe('<|im_end|>');
    expect(tokenizer.eosTokenId).toBe(151645);
    expect(tokenizer.isSpecialId(151645)).toBe(true);
    expect(tokenizer.isSpecialId(151667)).toBe(false);
  });

  it('decodes with or without special tokens', () => {
    const ids = tokenizer.encode('<think>\nhm\n</think>\n\nHi').concat([151645]);
    expect(tokenizer.decode(ids)).toBe('<think>\nhm\n</think>\n\nHi<|im_end|>');
    expect(tokenizer.decode(ids, { skipSpecialTokens: true })).toBe('<think>\nhm\n</think>\n\nHi');
  });
});

describe('createIncrementalDetokenizer', () => {
  it('holds back a character split across ids and emits it with the id that completes it', () => {
    const text = 'naïve 🦙 café 世界';
    const ids = tokenizer.encode(text);
    const detokenizer = createIncrementalDetokenizer(tokenizer);
    const deltas = ids.map((id) => detokenizer.push(id));
    expect(deltas.join('') + detokenizer.flush()).toBe(text);
    expect(deltas.some((delta) => delta === '')).toBe(true);
    expect(deltas.every((delta) => !delta.includes('\uFFFD'))).toBe(true);
  });

  it('skips special tokens when asked', () => {
    const detokenizer = createIncrementalDetokenizer(tokenizer, { skipSpecialTokens: true });
    expect([9707, 151645].map((id) => detokenizer.push(id))).toEqual(['Hello', '']);
  });
});

describe('renderChatTemplate with the Qwen3 template', () => {
  it('renders system and user turns and the generation prompt', () => {
    const text = render([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(text).toBe('<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
  });

  it('adds an empty think block when thinking is off', () => {
    expect(render([{ role: 'user', content: 'Hi' }], { thinking: false })).toMatch(/<\|im_start\|>assistant\n<think>\n\n<\/think>\n\n$/);
  });

  it('prints tools like vLLM (tool.model_dump() through tojson)', () => {
    const text = render([{ role: 'user', content: 'ls' }], {
      tools: [{ type: 'function', function: { name: 'run', parameters: { type: 'object' } } }],
    });
    expect(text).toContain(
      '<tools>\n{"type": "function", "function": {"name": "run", "description": null, "parameters": {"type": "object"}}}\n</tools>',
    );
  });

  it('renders assistant tool calls with arguments re-serialized from the JSON string', () => {
    const text = render([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ]);
    expect(text).toContain('<|im_start|>assistant\n<tool_call>\n{"name": "w", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n');
    expect(text).toContain('<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n');
  });

  it('continues the final message without closing it', () => {
    const text = render(
      [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello, I' },
      ],
      { continueFinal: true },
    );
    // Qwen3 gives the last assistant turn an (empty) think block
    expect(text.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\nHello, I')).toBe(true);
  });
});

describe('normalizeChatMessages', () => {
  it('joins text parts with newlines and turns null content into an empty string', () => {
    expect(
      normalizeChatMessages([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'image_url', image_url: { url: 'x' } },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: null },
      ]),
    ).toEqual([
      { role: 'user', content: 'a\nb' },
      { role: 'assistant', content: '' },
    ]);
  });

  it('parses tool-call arguments, drops empty tool_calls and passes reasoning under both names', () => {
    const [message] = normalizeChatMessages([
      { role: 'assistant', content: 'x', reasoning: 'r', tool_calls: [{ id: '1', type: 'function', function: { name: 'f', arguments: '' } }] },
    ]);
    expect(message).toEqual({
      role: 'assistant',
      content: 'x',
      reasoning: 'r',
      reasoning_content: 'r',
      tool_calls: [{ id: '1', type: 'function', function: { name: 'f', arguments: {} } }],
    });
    expect(normalizeChatMessages([{ role: 'assistant', content: 'y', tool_calls: [] }])).toEqual([{ role: 'assistant', content: 'y' }]);
    expect(() => normalizeChatMessages([{ role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: '{bad' } }] }])).toThrow();
  });
});
