import { createHfRetokenizer } from './create-hf-retokenizer.js';
import { createTiktokenRetokenizer, type TiktokenEncodingName } from './create-tiktoken-retokenizer.js';
import type { Retokenizer } from './retokenizer.js';

export type RetokenizerOptions =
  /** a Hugging Face model folder holding `tokenizer.json` and `tokenizer_config.json` */
  | { kind: 'hf'; directory: string }
  /** an OpenAI tiktoken encoding; `o200k_harmony` is gpt-oss's */
  | { kind: 'tiktoken'; encoding: TiktokenEncodingName };

/**
 * The tokenizer retokenization works with, for calls whose backend returned no token ids. Pick the one the
 * served model uses: its own Hugging Face folder where you have it, or the tiktoken encoding of an OpenAI model.
 *
 * @example
 * const retokenizer = await createRetokenizer({ kind: 'hf', directory: qwen3TokenizerDir() });
 * const gptOss = await createRetokenizer({ kind: 'tiktoken', encoding: 'o200k_harmony' });
 */
export function createRetokenizer(options: RetokenizerOptions): Promise<Retokenizer> {
  return options.kind === 'hf' ? createHfRetokenizer(options.directory) : createTiktokenRetokenizer(options.encoding);
}
