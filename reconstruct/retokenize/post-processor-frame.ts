import { isRecord } from '../../core/json/is-record.js';

/** Ids a Hugging Face tokenizer adds around a single text when asked to add special tokens (BOS, EOS, CLS/SEP). */
export interface PromptFrame {
  prefix: number[];
  suffix: number[];
}

/**
 * Reads the frame from `tokenizer.json`'s `post_processor`, the part `encode(text, add_special_tokens=True)`
 * applies: `TemplateProcessing` (`single`: special tokens around `$A`, e.g. Llama 3's `<|begin_of_text|>`),
 * `BertProcessing` / `RobertaProcessing` (`cls` … `sep`) and `Sequence` of those. `ByteLevel` and unknown
 * processors add nothing (Qwen3's case). vLLM encodes completions prompts this way; chat prompts are rendered by
 * the template, which already holds its special tokens, and are encoded without a frame.
 *
 * @example
 * postProcessorFrame({ type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>' } }, { Sequence: { id: 'A' } }],
 *   special_tokens: { '<s>': { ids: [1] } } }); // { prefix: [1], suffix: [] }
 */
export function postProcessorFrame(processor: unknown): PromptFrame {
  const frame: PromptFrame = { prefix: [], suffix: [] };
  if (!isRecord(processor)) return frame;
  if (processor.type === 'Sequence' && Array.isArray(processor.processors)) {
    for (const inner of processor.processors) {
      const innerFrame = postProcessorFrame(inner);
      frame.prefix.push(...innerFrame.prefix);
      frame.suffix.unshift(...innerFrame.suffix);
    }
    return frame;
  }
  if (processor.type === 'TemplateProcessing' && Array.isArray(processor.single)) return templateFrame(processor.single, processor.special_tokens);
  if (processor.type === 'BertProcessing' || processor.type === 'RobertaProcessing') {
    const cls = pairId(processor.cls);
    const sep = pairId(processor.sep);
    return { prefix: cls === null ? [] : [cls], suffix: sep === null ? [] : [sep] };
  }
  return frame;
}

function templateFrame(pieces: readonly unknown[], specialTokens: unknown): PromptFrame {
  const frame: PromptFrame = { prefix: [], suffix: [] };
  let afterSequence = false;
  for (const piece of pieces) {
    if (!isRecord(piece)) continue;
    if (isRecord(piece.Sequence)) afterSequence = true;
    const name = isRecord(piece.SpecialToken) ? piece.SpecialToken.id : undefined;
    if (typeof name !== 'string') continue;
    const entry = isRecord(specialTokens) ? specialTokens[name] : undefined;
    const ids = isRecord(entry) && Array.isArray(entry.ids) ? entry.ids.filter((id): id is number => typeof id === 'number') : [];
    (afterSequence ? frame.suffix : frame.prefix).push(...ids);
  }
  return frame;
}

/** `["<s>", 0]` -> 0 */
function pairId(pair: unknown): number | null {
  return Array.isArray(pair) && typeof pair[1] === 'number' ? pair[1] : null;
}
