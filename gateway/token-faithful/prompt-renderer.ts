import { isRecord } from '../../core/json/is-record.js';

/** What decides a chat prompt's tokens: the fields vLLM's chat renderer (and its /tokenize) read. */
export interface PromptRequest {
  model: string | null;
  messages: Array<Record<string, unknown>>;
  tools: unknown[] | null;
  chatTemplateKwargs: Record<string, unknown> | null;
  /** a per-request template (vLLM's `chat_template` field); null: the model's own */
  chatTemplate: string | null;
  addGenerationPrompt: boolean;
}

/**
 * Turns chat messages into prompt token ids with the model's chat template. Two implementations: a local Hugging
 * Face folder (`--model-dir`) or the backend's own `/tokenize`.
 */
export interface PromptRenderer {
  /**
   * Checks before the first call that prompts can be rendered at all (the local folder: its tokenizer and chat template
   * load, and a one-message conversation renders and tokenizes); throws TokentapError TT_MODEL_DIR_INVALID naming the
   * folder and what is wrong. Absent where nothing local can be checked (the backend's /tokenize renders).
   */
  check?(): Promise<void>;
  /** the whole conversation's prompt ids, as vLLM's chat endpoint would render them */
  renderFull(request: PromptRequest, signal: AbortSignal): Promise<number[]>;
  /**
   * The ids of what follows the earlier assistant turn (the first `prefixCount` messages end with it): the whole
   * conversation is rendered and cut right after that turn's end-of-turn token (`endOfTurnId`), so the template
   * decides how tool results, user turns and the generation prompt are written. Null when the cut cannot be
   * found (a template that writes no such token after an assistant turn).
   */
  renderAfterTurn(request: PromptRequest, prefixCount: number, endOfTurnId: number, signal: AbortSignal): Promise<number[] | null>;
}

/**
 * The prompt fields of a vLLM chat body.
 *
 * @example promptRequestFrom({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).addGenerationPrompt // true
 */
export function promptRequestFrom(chatBody: Record<string, unknown>): PromptRequest {
  const messages = Array.isArray(chatBody.messages) ? chatBody.messages.filter(isRecord) : [];
  return {
    model: typeof chatBody.model === 'string' ? chatBody.model : null,
    messages,
    tools: Array.isArray(chatBody.tools) && chatBody.tools.length > 0 ? chatBody.tools : null,
    chatTemplateKwargs: isRecord(chatBody.chat_template_kwargs) ? chatBody.chat_template_kwargs : null,
    chatTemplate: typeof chatBody.chat_template === 'string' ? chatBody.chat_template : null,
    addGenerationPrompt: chatBody.add_generation_prompt !== false,
  };
}

type Searchable<T> = ArrayLike<T> & { indexOf(value: T, from?: number): number };

/**
 * Where the text (or ids) after the `count`-th occurrence of any of `markers` starts; -1 when there are fewer. Several
 * markers: a family whose template may close a turn with another end-of-turn token than the one sampled (Llama 3:
 * `<|eot_id|>` for `<|eom_id|>`) counts them all.
 *
 * @example indexAfterOccurrence([1, 9, 2, 8, 3], [9, 8], 2) // 4
 */
export function indexAfterOccurrence<T>(sequence: Searchable<T>, markers: readonly T[], count: number): number {
  let from = 0;
  for (let seen = 0; seen < count; seen++) {
    const after = afterNextOccurrence(sequence, markers, from);
    if (after === -1) return -1;
    from = after;
  }
  return from;
}

/**
 * Whether the `count`-th occurrence of the markers closes the same stretch (from the occurrence before it) in both
 * sequences. Where a family counts several end-of-turn tokens (one written for another), the turn found in the whole
 * rendering must be the earlier turn itself, not a message the new ones moved there (gpt-oss: a system message among
 * them can add Harmony's developer message, one more `<|end|>` before the turn).
 *
 * @example closesSameTurn('a<e>b<e>', 'x<e>a<e>b<e>', ['<e>'], 2) // false: the second <e> closes a, not b
 */
export function closesSameTurn<T>(before: Searchable<T>, whole: Searchable<T>, markers: readonly T[], count: number): boolean {
  const [from, to] = [indexAfterOccurrence(before, markers, count - 1), indexAfterOccurrence(before, markers, count)];
  const [wholeFrom, wholeTo] = [indexAfterOccurrence(whole, markers, count - 1), indexAfterOccurrence(whole, markers, count)];
  if (to === -1 || wholeTo === -1 || to - from !== wholeTo - wholeFrom) return false;
  for (let offset = 0; offset < to - from; offset++) if (before[from + offset] !== whole[wholeFrom + offset]) return false;
  return true;
}

/**
 * How often any of `markers` occurs (non-overlapping).
 *
 * @example countOccurrences('a<e>b<m>', ['<e>', '<m>']) // 2
 */
export function countOccurrences<T>(sequence: Searchable<T>, markers: readonly T[]): number {
  let count = 0;
  for (let from = afterNextOccurrence(sequence, markers, 0); from !== -1; from = afterNextOccurrence(sequence, markers, from)) count++;
  return count;
}

/** Just past the first occurrence of any marker at or after `from` (a text marker's length, one id), -1 when none. */
function afterNextOccurrence<T>(sequence: Searchable<T>, markers: readonly T[], from: number): number {
  let first = -1;
  let after = -1;
  for (const marker of markers) {
    const at = sequence.indexOf(marker, from);
    if (at === -1 || (first !== -1 && at >= first)) continue;
    [first, after] = [at, at + (typeof marker === 'string' ? marker.length : 1)];
  }
  return after;
}
