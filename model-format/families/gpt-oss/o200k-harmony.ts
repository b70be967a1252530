/**
 * `o200k_harmony`, the encoding of OpenAI's gpt-oss models, which `@dqbd/tiktoken` 1.0.22 does not ship. It is
 * `o200k_base` (same ranks, same split pattern) with the Harmony special tokens added. Sources, all public:
 * - openai/tiktoken `tiktoken_ext/openai_public.py`, `o200k_harmony()`: base specials, the named tokens below,
 *   then `<|reserved_{i}|>` for every i in range(200013, 201088);
 * - openai/gpt-oss `gpt_oss/tokenizer.py`, `get_tokenizer()`: the same, but reserved names skip ids already
 *   taken, so 200018 stays `<|endofprompt|>` only (what the model's Hugging Face tokenizer_config also says);
 * - openai/harmony `src/tiktoken_ext/public_encodings.rs`: the same named ids (and a reserved 200013).
 * tokentap follows gpt-oss's own `get_tokenizer()`: one name per id, so decoding is unambiguous.
 */

/** o200k_base's own special tokens (`@dqbd/tiktoken/encoders/o200k_base.json`, openai_public.py `o200k_base()`). */
const O200K_BASE_SPECIALS: Readonly<Record<string, number>> = { '<|endoftext|>': 199999, '<|endofprompt|>': 200018 };

/** The Harmony tokens with names, ids as in openai/tiktoken `o200k_harmony()` and openai/harmony docs/format.md. */
export const HARMONY_SPECIAL_TOKENS: Readonly<Record<string, number>> = {
  '<|startoftext|>': 199998,
  '<|endoftext|>': 199999,
  '<|reserved_200000|>': 200000,
  '<|reserved_200001|>': 200001,
  '<|return|>': 200002,
  '<|constrain|>': 200003,
  '<|reserved_200004|>': 200004,
  '<|channel|>': 200005,
  '<|start|>': 200006,
  '<|end|>': 200007,
  '<|message|>': 200008,
  '<|reserved_200009|>': 200009,
  '<|reserved_200010|>': 200010,
  '<|reserved_200011|>': 200011,
  '<|call|>': 200012,
};

/** First and one-past-last id of the reserved sweep (`range(200013, 201088)`): the vocabulary has 201088 ids. */
export const HARMONY_RESERVED_FROM = 200013;
export const HARMONY_VOCAB_SIZE = 201088;

/**
 * Every special token of o200k_harmony, name -> id, as gpt-oss's `get_tokenizer()` builds it.
 *
 * @example
 * o200kHarmonySpecialTokens()['<|start|>']; // 200006
 * o200kHarmonySpecialTokens()['<|reserved_201087|>']; // 201087
 */
export function o200kHarmonySpecialTokens(): Record<string, number> {
  const specials: Record<string, number> = { ...O200K_BASE_SPECIALS, ...HARMONY_SPECIAL_TOKENS };
  const used = new Set(Object.values(specials));
  for (let id = HARMONY_RESERVED_FROM; id < HARMONY_VOCAB_SIZE; id++) {
    if (!used.has(id)) specials[`<|reserved_${id}|>`] = id;
  }
  return specials;
}
