/** Reasoning and answer of one Qwen3 completion; null where vLLM reports null. */
export interface Qwen3ReasoningSplit {
  reasoning: string | null;
  content: string | null;
}

export const THINK_START = '<think>';
export const THINK_END = '</think>';

/**
 * Splits a Qwen3 completion the way vLLM's `qwen3` reasoning parser does for models that generate `<think>`
 * themselves (Qwen3 up to the 2507 releases): the text between `<think>` and `</think>` is reasoning, the
 * text after `</think>` is content, kept verbatim (the leading "\n\n" stays). A completion cut off inside the
 * think block is all reasoning. A completion that never opens `<think>` is all content: that is what
 * vLLM's parser returned before the Qwen3.5 change (vllm/reasoning/qwen3_reasoning_parser.py; the newer one
 * assumes `<think>` sits in the prompt), and what a non-thinking reply (`enable_thinking: false`) looks like.
 *
 * @example
 * splitQwen3Reasoning('<think>\nsum it\n</think>\n\n3'); // { reasoning: '\nsum it\n', content: '\n\n3' }
 */
export function splitQwen3Reasoning(text: string): Qwen3ReasoningSplit {
  const start = text.indexOf(THINK_START);
  if (start === -1) return { reasoning: null, content: text };
  const afterStart = text.slice(start + THINK_START.length);
  const end = afterStart.indexOf(THINK_END);
  if (end === -1) return { reasoning: afterStart, content: null };
  const content = text.slice(0, start) + afterStart.slice(end + THINK_END.length);
  return { reasoning: afterStart.slice(0, end), content: content === '' ? null : content };
}
