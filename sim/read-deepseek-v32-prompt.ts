import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import type { SimGenerationRecord } from './sim-generation-record.js';

// DeepSeek V3.2's encoder ends every prompt that hands the model its turn with one of these: after a user turn
// `<｜Assistant｜>` and then one, after the last tool result `</function_results>\n\n` and then one
const THINK_START = '<think>';

/**
 * True when a DeepSeek V3.2 prompt opens the model's turn in thinking mode: it ends with `<think>` (DeepSeek's encoder,
 * encoding_dsv32.py, writes `<think>` there when thinking is on and `</think>` when it is off), so the model thinks
 * first and ends its reasoning with `</think>`. From the prompt text when there is one, else from its ids.
 *
 * @example opensDeepSeekV32Thinking(tokenizer, record); // true for a prompt ending `<｜User｜>Hi<｜Assistant｜><think>`
 */
export function opensDeepSeekV32Thinking(tokenizer: HfTokenizer, record: SimGenerationRecord): boolean {
  if (record.promptText !== null) return record.promptText.endsWith(THINK_START);
  const ending = tokenizer.encode(THINK_START);
  const ids = record.promptTokenIds;
  return ending.length <= ids.length && ending.every((id, index) => ids[ids.length - ending.length + index] === id);
}
