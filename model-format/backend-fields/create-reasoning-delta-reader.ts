import { REASONING_FIELDS, type ReasoningField } from './read-reasoning.js';

/** Reads the reasoning of one streamed reply, delta by delta. */
export interface ReasoningDeltaReader {
  /** the delta's reasoning text under the name this stream uses ('' included); null when it carries none */
  read(delta: Readonly<Record<string, unknown>>): string | null;
  /** the name the stream carries reasoning under, once a delta held a string under one of REASONING_FIELDS */
  readonly field: ReasoningField | null;
}

/**
 * A reader for one stream: the first name that holds a string in a delta is the stream's, and only it is read
 * from then on, so a server that sends the same text under both names (vLLM releases around PR #27752) has it
 * counted once.
 *
 * @example
 * const reasoning = createReasoningDeltaReader();
 * reasoning.read({ reasoning: 'Two', reasoning_content: 'Two' }); // 'Two'
 * reasoning.read({ reasoning_content: ' calls.' }); // null: this stream says `reasoning`
 */
export function createReasoningDeltaReader(): ReasoningDeltaReader {
  let field: ReasoningField | null = null;
  return {
    read(delta) {
      if (field !== null) {
        const value = delta[field];
        return typeof value === 'string' ? value : null;
      }
      for (const name of REASONING_FIELDS) {
        const value = delta[name];
        if (typeof value !== 'string') continue;
        field = name;
        return value;
      }
      return null;
    },
    get field() {
      return field;
    },
  };
}
