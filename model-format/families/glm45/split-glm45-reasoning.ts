export const GLM_THINK_START = '<think>';
export const GLM_THINK_END = '</think>';

/**
 * Splits a GLM-4.5 / 4.6 completion as vLLM's `glm45` reasoning parser does (`Glm4MoeModelReasoningParser.
 * extract_reasoning_content`, vllm/reasoning/glm4_moe_reasoning_parser.py): unless the text holds both `<think>` and
 * `</think>` it is all content; otherwise the text after the first `<think>` is split at the first `</think>`:
 * reasoning before, content after (null when empty).
 *
 * @example splitGlm45Reasoning('<think>weigh it</think>Yes.'); // { reasoning: 'weigh it', content: 'Yes.' }
 */
export function splitGlm45Reasoning(text: string): { reasoning: string | null; content: string | null } {
  if (!text.includes(GLM_THINK_START) || !text.includes(GLM_THINK_END)) return { reasoning: null, content: text };
  const output = text.slice(text.indexOf(GLM_THINK_START) + GLM_THINK_START.length);
  const end = output.indexOf(GLM_THINK_END);
  if (end === -1) return { reasoning: null, content: output };
  const content = output.slice(end + GLM_THINK_END.length);
  return { reasoning: output.slice(0, end), content: content === '' ? null : content };
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface Glm45ReasoningStream {
  push(deltaText: string): { reasoning?: string; content?: string } | null;
}

/**
 * The streaming half of vLLM's `glm45` reasoning parser (`extract_reasoning_content_streaming`), its token-id tests
 * read on text (`<think>` and `</think>` are single special tokens in GLM's vocabulary, so "the delta is one of them"
 * is "the delta is exactly the tag"):
 * - a delta that is only a tag yields nothing;
 * - `<think>` already seen: a delta holding `</think>` splits there; after `</think>` all is content, before it reasoning;
 * - `<think>` in this delta: with `</think>` too, the text between is reasoning and after it content; without, the
 *   whole delta is reasoning (the `<think>` text included, as vLLM sends it);
 * - no `<think>` yet: content (thinking off). Unlike the whole split, a stream cut off inside the think block is reasoning.
 *
 * @example
 * const stream = createGlm45ReasoningStream();
 * ['<think>', 'hm', '</think>', 'Yes'].map((delta) => stream.push(delta)); // [null, { reasoning: 'hm' }, null, { content: 'Yes' }]
 */
export function createGlm45ReasoningStream(): Glm45ReasoningStream {
  let previous = '';
  return {
    push(deltaText) {
      const before = previous;
      previous += deltaText;
      if (deltaText === GLM_THINK_START || deltaText === GLM_THINK_END) return null;
      let reasoning: string | undefined;
      let content: string | undefined;
      if (before.includes(GLM_THINK_START)) {
        if (deltaText.includes(GLM_THINK_END)) {
          const end = deltaText.indexOf(GLM_THINK_END);
          reasoning = deltaText.slice(0, end);
          content = deltaText.slice(end + GLM_THINK_END.length);
        } else if (before.includes(GLM_THINK_END)) content = deltaText;
        else reasoning = deltaText;
      } else if (deltaText.includes(GLM_THINK_START)) {
        if (deltaText.includes(GLM_THINK_END)) {
          const end = deltaText.indexOf(GLM_THINK_END);
          reasoning = deltaText.slice(deltaText.indexOf(GLM_THINK_START) + GLM_THINK_START.length, end);
          content = deltaText.slice(end + GLM_THINK_END.length);
        } else reasoning = deltaText;
      } else content = deltaText;
      const delta: { reasoning?: string; content?: string } = {};
      if (reasoning !== undefined && reasoning !== '') delta.reasoning = reasoning;
      if (content !== undefined && content !== '') delta.content = content;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}
