/** The generated completion: what the engine sampled and what each step streamed. */
export interface CompletionPlan {
  /** completion ids; they end with the end-of-turn id when the model finished its turn */
  tokenIds: readonly number[];
  /** text streamed with each id ("" for the end-of-turn id, "" while a character is incomplete) */
  tokenTexts: readonly string[];
  finishReason: 'stop' | 'length';
  /** the stop string or stop token id that ended it; null for the end-of-turn token or a length cut */
  stopReason: string | number | null;
}

export interface PlanCompletionOptions {
  /** the reply's ids and per-id text, end-of-turn included when the model ends its turn */
  tokenIds: readonly number[];
  tokenTexts: readonly string[];
  /** true when the last id is the end-of-turn token (finish "stop"); false means the reply ran out ("length") */
  endsTurn: boolean;
  /**
   * the stop_reason of a reply that ends its turn: the end-of-turn id when it is a stop token id rather than the
   * tokenizer's EOS (Llama 3.1's `<|eom_id|>`, from generation_config); unset: null
   */
  endStopReason?: number;
  /** request `stop` strings */
  stop?: readonly string[];
  /** request `stop_token_ids` */
  stopTokenIds?: readonly number[];
  /** max_tokens / max_completion_tokens after defaults */
  maxTokens: number;
}

/**
 * Applies the request's stop conditions to a reply the way vLLM's engine does step by step: the first of
 * the end-of-turn token, a stop token id or a completed stop string ends the completion with "stop";
 * reaching `maxTokens` first ends it with "length" (and no end-of-turn token). A stop string is not part of
 * the text (vLLM's default `include_stop_str_in_output: false`), and while stop strings are set the stream
 * holds back the last `longest stop - 1` characters, as vLLM's detokenizer does.
 *
 * @example
 * planCompletion({ tokenIds: [9707, 151645], tokenTexts: ['Hello', ''], endsTurn: true, maxTokens: 1 });
 * // { tokenIds: [9707], tokenTexts: ['Hello'], finishReason: 'length', stopReason: null }
 */
export function planCompletion(options: PlanCompletionOptions): CompletionPlan {
  const { tokenIds, tokenTexts } = options;
  const stops = (options.stop ?? []).filter((stop) => stop !== '');
  let end = tokenIds.length - 1;
  let finishReason: 'stop' | 'length' = options.endsTurn ? 'stop' : 'length';
  let stopReason: string | number | null = options.endsTurn ? (options.endStopReason ?? null) : null;
  const stopTokenIds = new Set(options.stopTokenIds ?? []);
  if (stopTokenIds.size > 0) {
    const last = options.endsTurn ? end : end + 1;
    const found = tokenIds.findIndex((id, index) => index < last && stopTokenIds.has(id));
    if (found !== -1) [end, finishReason, stopReason] = [found, 'stop', tokenIds[found] ?? null];
  }
  const cumulative = cumulativeLengths(tokenTexts);
  const fullText = tokenTexts.join('');
  let textEnd = cumulative[end] ?? 0;
  const stringStop = stops.length > 0 ? earliestStop(fullText, stops, cumulative) : null;
  if (stringStop !== null && stringStop.tokenIndex <= end) {
    [end, finishReason, stopReason, textEnd] = [stringStop.tokenIndex, 'stop', stringStop.stop, stringStop.position];
  }
  if (end + 1 > options.maxTokens) {
    [end, finishReason, stopReason] = [options.maxTokens - 1, 'length', null];
    textEnd = cumulative[end] ?? 0;
  }
  if (stops.length === 0 && end === tokenIds.length - 1) return { tokenIds, tokenTexts, finishReason, stopReason };
  const holdBack = stops.length === 0 ? 0 : Math.max(...stops.map((stop) => stop.length)) - 1;
  return {
    tokenIds: tokenIds.slice(0, end + 1),
    tokenTexts: streamedTexts(fullText, cumulative, end, textEnd, holdBack),
    finishReason,
    stopReason,
  };
}

function cumulativeLengths(texts: readonly string[]): number[] {
  const lengths: number[] = [];
  let total = 0;
  for (const text of texts) lengths.push((total += text.length));
  return lengths;
}

function earliestStop(
  text: string,
  stops: readonly string[],
  cumulative: readonly number[],
): { stop: string; position: number; tokenIndex: number } | null {
  let best: { stop: string; position: number; tokenIndex: number } | null = null;
  for (const stop of stops) {
    const position = text.indexOf(stop);
    if (position === -1) continue;
    const tokenIndex = cumulative.findIndex((length) => length >= position + stop.length);
    if (best === null || tokenIndex < best.tokenIndex || (tokenIndex === best.tokenIndex && position < best.position)) {
      best = { stop, position, tokenIndex };
    }
  }
  return best;
}

function streamedTexts(text: string, cumulative: readonly number[], end: number, textEnd: number, holdBack: number): string[] {
  const texts: string[] = [];
  let emitted = 0;
  for (let index = 0; index <= end; index++) {
    let upTo = index === end ? textEnd : Math.min(Math.max(emitted, (cumulative[index] ?? 0) - holdBack), textEnd);
    // never split a surrogate pair between two chunks
    if (upTo > emitted && upTo < text.length && isLowSurrogate(text.charCodeAt(upTo))) upTo--;
    texts.push(text.slice(emitted, Math.max(upTo, emitted)));
    emitted = Math.max(upTo, emitted);
  }
  return texts;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
