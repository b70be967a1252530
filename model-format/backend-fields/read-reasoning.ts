/**
 * The names an OpenAI-compatible server gives an assistant's reasoning text, in the order they are read: vLLM says
 * `reasoning` since PR #27752 and `reasoning_content` before it (SGLang's OpenAI server says `reasoning_content`);
 * releases in between send the same text under both. A backend with other names adds them here.
 */
export const REASONING_FIELDS = ['reasoning', 'reasoning_content'] as const;

export type ReasoningField = (typeof REASONING_FIELDS)[number];

/**
 * The reasoning text of a chat message, a reply's `message` or one stream delta: the first of REASONING_FIELDS
 * that holds a string ('' included); null when none does.
 *
 * @example readReasoning({ role: 'assistant', reasoning_content: 'Two calls.' }) // 'Two calls.'
 */
export function readReasoning(message: Readonly<Record<string, unknown>>): string | null {
  for (const field of REASONING_FIELDS) {
    const value = message[field];
    if (typeof value === 'string') return value;
  }
  return null;
}

/**
 * Puts reasoning text on a message under every name a server may read (a request to a vLLM from before PR #27752
 * or after it, or to SGLang), in REASONING_FIELDS order.
 *
 * @example writeReasoning(message, 'Two calls.'); // message.reasoning === message.reasoning_content === 'Two calls.'
 */
export function writeReasoning(message: Record<string, unknown>, text: string): void {
  for (const field of REASONING_FIELDS) message[field] = text;
}
