export const DEEPSEEK_THINK_START = '<think>';
export const DEEPSEEK_THINK_END = '</think>';

/**
 * Splits a completion as vLLM's `deepseek_r1` reasoning parser does (vllm/reasoning/deepseek_r1_reasoning_parser.py,
 * `extract_reasoning` of basic_parsers.py's BaseThinkingReasoningParser): text up to and including the first `<think>`
 * is dropped when there is one; the text before the first `</think>` after that is reasoning, the text after it content
 * (null when empty). Without `</think>` all of it is reasoning, content null: R1's template opens the think block in
 * the prompt (`<｜Assistant｜><think>\n`), so the model's text starts inside it, and a reply cut off before `</think>`
 * (or one that never thinks) is read as reasoning. The parser reads the output only, never the prompt.
 *
 * @example splitDeepSeekR1Reasoning('weigh it\n</think>\n\nYes.'); // { reasoning: 'weigh it\n', content: '\n\nYes.' }
 */
export function splitDeepSeekR1Reasoning(text: string): { reasoning: string | null; content: string | null } {
  const start = text.indexOf(DEEPSEEK_THINK_START);
  const output = start === -1 ? text : text.slice(start + DEEPSEEK_THINK_START.length);
  const end = output.indexOf(DEEPSEEK_THINK_END);
  if (end === -1) return { reasoning: output, content: null };
  const content = output.slice(end + DEEPSEEK_THINK_END.length);
  return { reasoning: output.slice(0, end), content: content === '' ? null : content };
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface DeepSeekR1ReasoningStream {
  push(deltaText: string): { reasoning?: string; content?: string } | null;
}

/**
 * The streaming half of vLLM's `deepseek_r1` parser (`extract_reasoning_streaming`: BaseThinkingReasoningParser's, then
 * DeepSeekR1ReasoningParser's override where no `<think>` came), read on text instead of token ids (`<think>` and
 * `</think>` are single tokens in R1's vocabulary, so "the id is in the deltas so far" is "the tag is in the text"):
 * - a delta that is only a tag yields nothing;
 * - `<think>` in an earlier delta: a delta holding `</think>` splits there (reasoning before, content after); after an
 *   earlier `</think>` all is content; else all is reasoning;
 * - `<think>` in this delta: with `</think>` too, the reasoning is what lies between them and the content what follows
 *   `</think>`; without it the whole delta is reasoning (the `<think>` text in it too, as vLLM sends it);
 * - no `<think>` at all (R1's prompt opened the block): as in the first case; so a reply without `</think>` streams as
 *   reasoning to its end.
 * Empty parts are not sent.
 *
 * @example
 * const stream = createDeepSeekR1ReasoningStream();
 * ['hm', '</think>', 'Yes'].map((delta) => stream.push(delta)); // [{ reasoning: 'hm' }, null, { content: 'Yes' }]
 */
export function createDeepSeekR1ReasoningStream(): DeepSeekR1ReasoningStream {
  let previous = '';
  return {
    push(deltaText) {
      const before = previous;
      previous += deltaText;
      if (deltaText === DEEPSEEK_THINK_START || deltaText === DEEPSEEK_THINK_END) return null;
      const startInDelta = !before.includes(DEEPSEEK_THINK_START) && deltaText.includes(DEEPSEEK_THINK_START);
      const end = deltaText.indexOf(DEEPSEEK_THINK_END);
      if (startInDelta) {
        if (end === -1) return parts(deltaText, undefined);
        const start = deltaText.indexOf(DEEPSEEK_THINK_START) + DEEPSEEK_THINK_START.length;
        // Python's delta_text[start:end] is empty when </think> comes first; so is slice's
        return parts(deltaText.slice(start, end), deltaText.slice(end + DEEPSEEK_THINK_END.length));
      }
      if (end !== -1) return parts(deltaText.slice(0, end), deltaText.slice(end + DEEPSEEK_THINK_END.length));
      return before.includes(DEEPSEEK_THINK_END) ? parts(undefined, deltaText) : parts(deltaText, undefined);
    },
  };
}

function parts(reasoning: string | undefined, content: string | undefined): { reasoning?: string; content?: string } | null {
  const delta: { reasoning?: string; content?: string } = {};
  if (reasoning !== undefined && reasoning !== '') delta.reasoning = reasoning;
  if (content !== undefined && content !== '') delta.content = content;
  return Object.keys(delta).length === 0 ? null : delta;
}
