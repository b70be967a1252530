import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import type { SimGenerationRecord } from './sim-generation-record.js';

// what Kimi K2's templates end a prompt with (add_generation_prompt), and what opens each call in its history
const ASSISTANT_TURN = '<|im_assistant|>assistant<|im_middle|>';
const CALL_BEGIN = '<|tool_call_begin|>';

/** What the simulated Kimi K2 reads in its prompt before it writes. */
export interface KimiK2PromptFacts {
  /** the prompt opens an assistant turn: K2-Thinking then thinks first (its templates write no `<think>` there) */
  opensTurn: boolean;
  /** the calls the conversation already holds: Kimi numbers its calls across the conversation (`functions.NAME:IDX`) */
  callsBefore: number;
}

/**
 * Reads a Kimi K2 prompt as the model sees it: whether it ends by opening an assistant turn, and how many
 * `<|tool_call_begin|>` it holds (Kimi's IDX counts every call of the conversation, not the turn's: MoonshotAI's
 * templates write each call back with the id the model gave it, and `## Return of ID` answers it). From the prompt
 * text when there is one, else from its ids (each marker is one special token).
 *
 * @example readKimiK2Prompt(tokenizer, record); // { opensTurn: true, callsBefore: 2 }
 */
export function readKimiK2Prompt(tokenizer: HfTokenizer, record: SimGenerationRecord): KimiK2PromptFacts {
  if (record.promptText !== null) {
    return { opensTurn: record.promptText.endsWith(ASSISTANT_TURN), callsBefore: record.promptText.split(CALL_BEGIN).length - 1 };
  }
  const ids = record.promptTokenIds;
  const opening = tokenizer.encode(ASSISTANT_TURN);
  const opensTurn = opening.length <= ids.length && opening.every((id, index) => ids[ids.length - opening.length + index] === id);
  const callBegin = tokenizer.tokenToId(CALL_BEGIN);
  return { opensTurn, callsBefore: callBegin === undefined ? 0 : ids.filter((id) => id === callBegin).length };
}
