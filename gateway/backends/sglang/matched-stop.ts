import type { ChoiceTokenFields } from '../token-tally.js';

/**
 * SGLang names what stopped a choice `matched_stop` (the stop token id, EOS included, or the stop string) where
 * vLLM says `stop_reason`: a choice's fields with the one SGLang sent when vLLM's is absent.
 *
 * @example withMatchedStop(readChoiceTokens(choice), { finish_reason: 'stop', matched_stop: 151645 }).stopReason // 151645
 */
export function withMatchedStop<Fields extends ChoiceTokenFields>(fields: Fields, choice: Record<string, unknown>): Fields {
  if (fields.stopReason !== null) return fields;
  const matched = choice.matched_stop;
  return typeof matched === 'number' || typeof matched === 'string' ? { ...fields, stopReason: matched } : fields;
}
