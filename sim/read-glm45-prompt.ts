import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import type { SimGenerationRecord } from './sim-generation-record.js';

// what GLM-4.5 / 4.6's template ends a prompt with (add_generation_prompt); with enable_thinking false it adds
// `\n<think></think>` after it
const ASSISTANT_TURN = '<|assistant|>';

/**
 * Whether the simulated GLM thinks first: its template's generation prompt is `<|assistant|>` with thinking left on
 * (the default), and the model then opens `<think>` itself; after `<|assistant|>\n<think></think>` (thinking off) or a
 * plain text prompt it does not. From the prompt text when there is one, else from its last id (one special token).
 *
 * @example opensGlm45Turn(tokenizer, record); // true for a prompt ending in `<|assistant|>`
 */
export function opensGlm45Turn(tokenizer: HfTokenizer, record: SimGenerationRecord): boolean {
  if (record.promptText !== null) return record.promptText.endsWith(ASSISTANT_TURN);
  const assistant = tokenizer.tokenToId(ASSISTANT_TURN);
  return assistant !== undefined && record.promptTokenIds.at(-1) === assistant;
}
