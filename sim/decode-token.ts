import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import { ALTERNATIVE_TOKENS, CANNED_REPLIES, QWEN_IM_END_ID, QWEN_IM_END_TEXT } from './fast-canned-replies.js';

const knownTokens = new Map<number, string>([[QWEN_IM_END_ID, QWEN_IM_END_TEXT], ...ALTERNATIVE_TOKENS]);
for (const canned of CANNED_REPLIES) {
  canned.tokenIds.forEach((id, index) => knownTokens.set(id, canned.tokenTexts[index] ?? ''));
}

/**
 * How logprobs show a token: the id decoded on its own with special tokens kept (vLLM's `decoded_token`,
 * so the end-of-turn token reads `<|im_end|>`). Fast mode has no tokenizer: it knows the canned tokens and
 * falls back to vLLM's `token_id:<id>` form for any other.
 *
 * @example
 * const decodeToken = tokenDecoder(tokenizer); decodeToken(151645); // '<|im_end|>'
 */
export function tokenDecoder(tokenizer: HfTokenizer | null): (id: number) => string {
  const cache = new Map<number, string>();
  return (id) => {
    const known = cache.get(id) ?? (tokenizer === null ? knownTokens.get(id) : undefined);
    if (known !== undefined) return known;
    const decoded = tokenizer === null ? `token_id:${id}` : tokenizer.decode([id]);
    cache.set(id, decoded);
    return decoded;
  };
}
