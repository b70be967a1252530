import type { ReasoningRequest } from '../model-family.js';

export const DEEPSEEK_THINK_START = '<think>';
export const DEEPSEEK_THINK_END = '</think>';

/**
 * True when the request turned thinking on, as vLLM's `deepseek_v3` reasoning parser reads it
 * (vllm/reasoning/deepseek_v3_reasoning_parser.py): `chat_template_kwargs.thinking` or `.enable_thinking`, truthy.
 *
 * @example deepSeekThinking({ chatTemplateKwargs: { thinking: true } }); // true
 */
export function deepSeekThinking(request: ReasoningRequest | undefined): boolean {
  const kwargs = request?.chatTemplateKwargs ?? null;
  return kwargs !== null && (truthy(kwargs.thinking) || truthy(kwargs.enable_thinking));
}

/**
 * Splits a DeepSeek V3.1 / V3.2 completion as vLLM's `deepseek_v3` reasoning parser does. Thinking off (the
 * template's default: the prompt ends `<｜Assistant｜></think>`): vLLM's identity parser, all content. Thinking on
 * (the prompt ends `<｜Assistant｜><think>`): vLLM's `deepseek_r1` parser (deepseek_r1_reasoning_parser.py,
 * `extract_reasoning_content`): a leading `<think>` is dropped, the text before `</think>` is reasoning, the text
 * after it content (null when empty); without `</think>` all of it is reasoning.
 *
 * @example
 * splitDeepSeekV3Reasoning('weigh it</think>Yes.', { chatTemplateKwargs: { thinking: true } }); // { reasoning: 'weigh it', content: 'Yes.' }
 */
export function splitDeepSeekV3Reasoning(text: string, request?: ReasoningRequest): { reasoning: string | null; content: string | null } {
  if (!deepSeekThinking(request)) return { reasoning: null, content: text };
  const start = text.indexOf(DEEPSEEK_THINK_START);
  const output = start === -1 ? text : text.slice(start + DEEPSEEK_THINK_START.length);
  const end = output.indexOf(DEEPSEEK_THINK_END);
  if (end === -1) return { reasoning: output, content: null };
  const content = output.slice(end + DEEPSEEK_THINK_END.length);
  return { reasoning: output.slice(0, end), content: content === '' ? null : content };
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface DeepSeekV3ReasoningStream {
  push(deltaText: string): { reasoning?: string; content?: string } | null;
}

/**
 * The streaming half of vLLM's `deepseek_v3` reasoning parser. Thinking off: every delta is content. Thinking on:
 * `deepseek_r1`'s `extract_reasoning_content_streaming`, read on text instead of token ids (`<think>` and
 * `</think>` are single tokens in DeepSeek V3.1's vocabulary): a delta that is only a tag yields nothing; a delta
 * holding `</think>` splits there (reasoning before, content after); before `</think>` all is reasoning (a
 * `<think>` in the same delta dropped), after it all is content.
 *
 * @example
 * const stream = createDeepSeekV3ReasoningStream({ chatTemplateKwargs: { thinking: true } });
 * ['hm', '</think>', 'Yes'].map((delta) => stream.push(delta)); // [{ reasoning: 'hm' }, null, { content: 'Yes' }]
 */
export function createDeepSeekV3ReasoningStream(request?: ReasoningRequest): DeepSeekV3ReasoningStream {
  if (!deepSeekThinking(request)) return { push: (deltaText) => (deltaText === '' ? null : { content: deltaText }) };
  let previous = '';
  return {
    push(deltaText) {
      const before = previous;
      previous += deltaText;
      if (deltaText === DEEPSEEK_THINK_START || deltaText === DEEPSEEK_THINK_END) return null;
      let reasoning: string | undefined;
      let content: string | undefined;
      const endInDelta = deltaText.indexOf(DEEPSEEK_THINK_END);
      if (endInDelta !== -1) {
        // vLLM: with <think> in this delta too, the reasoning starts after it; else everything before </think>
        const start = !before.includes(DEEPSEEK_THINK_START) ? deltaText.indexOf(DEEPSEEK_THINK_START) : -1;
        reasoning = deltaText.slice(start === -1 ? 0 : start + DEEPSEEK_THINK_START.length, endInDelta);
        const after = deltaText.slice(endInDelta + DEEPSEEK_THINK_END.length);
        if (after !== '') content = after;
      } else if (before.includes(DEEPSEEK_THINK_END)) content = deltaText;
      else reasoning = deltaText;
      const delta: { reasoning?: string; content?: string } = {};
      if (reasoning !== undefined && reasoning !== '') delta.reasoning = reasoning;
      if (content !== undefined && content !== '') delta.content = content;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== '';
}
