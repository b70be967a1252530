import type { HfTokenizer } from './load-hf-tokenizer.js';

/** Turns generated ids into text deltas one id at a time, as a streaming server does. */
export interface IncrementalDetokenizer {
  /** the text this id completes; "" while a multi-byte character is still incomplete */
  push(id: number): string;
  /** whatever is left over (U+FFFD for a character cut short) */
  flush(): string;
}

export interface IncrementalDetokenizerOptions {
  /** drop special tokens such as `<|im_end|>` from the text (vLLM's default `skip_special_tokens: true`) */
  skipSpecialTokens?: boolean;
}

/**
 * Decodes ids into text deltas whose concatenation equals `tokenizer.decode(ids)`. A character split across
 * ids comes out with the id that completes it, the way vLLM's incremental detokenizer holds back incomplete
 * UTF-8 instead of streaming U+FFFD.
 *
 * @example
 * const detokenizer = createIncrementalDetokenizer(tokenizer, { skipSpecialTokens: true });
 * ids.map((id) => detokenizer.push(id)); // ['To', ' determine', ...]
 */
export function createIncrementalDetokenizer(tokenizer: HfTokenizer, options: IncrementalDetokenizerOptions = {}): IncrementalDetokenizer {
  const decoder = new TextDecoder('utf-8');
  const skipSpecialTokens = options.skipSpecialTokens ?? false;
  return {
    push(id) {
      if (skipSpecialTokens && tokenizer.isSpecialId(id)) return '';
      return decoder.decode(tokenizer.tokenBytes(id), { stream: true });
    },
    flush() {
      return decoder.decode();
    },
  };
}
