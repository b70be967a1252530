import { beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer, qwen3TokenizerDir, type HfTokenizer } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { renderUtf8, TokenTexts } from '../../../ui/server/token-texts.js';

let tokenizer: HfTokenizer;
beforeAll(async () => {
  tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
});

describe("each token's own text", () => {
  it('is what the tokenizer decodes for whole characters, special tokens included', () => {
    const ids = [...tokenizer.encode('Hello, wörld! 中文'), tokenizer.tokenToId('<|im_end|>')!];
    const texts = new TokenTexts(tokenizer).of(ids);
    expect(texts).toEqual(ids.map((id) => tokenizer.decode([id])));
    expect(texts.join('')).toBe('Hello, wörld! 中文<|im_end|>');
  });

  it('shows the bytes of a character split across tokens as \\xNN, so the pieces stay visible', () => {
    // a rare character byte-level BPE splits into pieces of its four UTF-8 bytes
    const ids = tokenizer.encode('𝔘');
    expect(ids.length).toBeGreaterThan(1);
    const texts = new TokenTexts(tokenizer).of(ids);
    expect(texts.every((text) => /^(\\x[0-9a-f]{2})+$/.test(text))).toBe(true);
    const bytes = texts
      .join('')
      .match(/[0-9a-f]{2}/g)!
      .map((hex) => Number.parseInt(hex, 16));
    expect(new TextDecoder().decode(Uint8Array.from(bytes))).toBe('𝔘');
  });

  it('renders well-formed UTF-8 as text and every other byte as \\xNN', () => {
    expect(renderUtf8(new TextEncoder().encode('añ中😀'))).toBe('añ中😀');
    expect(renderUtf8(Uint8Array.of(0x68, 0xe4, 0xb8))).toBe('h\\xe4\\xb8');
    // overlong, surrogate and out-of-range forms are not characters
    expect(renderUtf8(Uint8Array.of(0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80))).toBe('\\xc0\\x80\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80');
  });
});
