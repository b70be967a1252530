import type { ReasoningRequest } from '../model-family.js';
import { KIMI_TOOL_CALLS_BEGIN } from './parse-kimi-k2-tool-calls.js';

export const KIMI_THINK_START = '<think>';
export const KIMI_THINK_END = '</think>';

/**
 * False only when the request turned thinking off, as vLLM's `kimi_k2` reasoning parser reads it
 * (vllm/reasoning/kimi_k2_reasoning_parser.py): `chat_template_kwargs.thinking`, true when absent.
 *
 * @example kimiThinking({ chatTemplateKwargs: { thinking: false } }); // false
 */
export function kimiThinking(request: ReasoningRequest | undefined): boolean {
  const kwargs = request?.chatTemplateKwargs ?? null;
  if (kwargs === null || !('thinking' in kwargs)) return true;
  const value = kwargs.thinking;
  return value !== false && value !== null && value !== 0 && value !== '' && value !== undefined;
}

/**
 * Splits a Kimi K2 (Thinking) completion as vLLM's `kimi_k2` reasoning parser does (`extract_reasoning`): thinking
 * off, all content; else a leading `<think>` is dropped, the text up to `</think>` is reasoning and after it content
 * (null when empty); without `</think>` a tool-call section ends the reasoning (the section is content); without
 * either all is reasoning. K2-Instruct writes no reasoning: its folder reads none (the family's `forFolder`).
 *
 * @example splitKimiK2Reasoning('<think>hm</think>Yes'); // { reasoning: 'hm', content: 'Yes' }
 */
export function splitKimiK2Reasoning(text: string, request?: ReasoningRequest): { reasoning: string | null; content: string | null } {
  if (!kimiThinking(request)) return { reasoning: null, content: text };
  const start = text.indexOf(KIMI_THINK_START) === 0 ? KIMI_THINK_START.length : 0;
  const end = text.indexOf(KIMI_THINK_END);
  if (end !== -1) return { reasoning: text.slice(start, end), content: orNull(text.slice(end + KIMI_THINK_END.length)) };
  const section = text.indexOf(KIMI_TOOL_CALLS_BEGIN);
  if (section !== -1) return { reasoning: text.slice(start, section), content: orNull(text.slice(section)) };
  return { reasoning: text.slice(start), content: null };
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface KimiK2ReasoningStream {
  push(deltaText: string): { reasoning?: string; content?: string } | null;
}

/**
 * The streaming half (`extract_reasoning_streaming`), its token-id tests read on text (the tags and the section
 * marker are single tokens): thinking off, all content; once the text so far ends its reasoning (of `<think>`,
 * `</think>` and `<|tool_calls_section_begin|>` the last seen is not `<think>`) every delta is content; a delta that
 * is only `<think>` or `</think>` yields nothing; a delta holding `</think>` splits there, one holding the section
 * marker splits before it; else the delta is reasoning.
 *
 * @example
 * const stream = createKimiK2ReasoningStream();
 * ['hm', '</think>', 'Yes'].map((delta) => stream.push(delta)); // [{ reasoning: 'hm' }, null, { content: 'Yes' }]
 */
export function createKimiK2ReasoningStream(request?: ReasoningRequest): KimiK2ReasoningStream {
  if (!kimiThinking(request)) return { push: (deltaText) => (deltaText === '' ? null : { content: deltaText }) };
  let previous = '';
  return {
    push(deltaText) {
      const before = previous;
      previous += deltaText;
      if (reasoningEnded(before)) return deltaText === '' ? null : { content: deltaText };
      if (deltaText === KIMI_THINK_START || deltaText === KIMI_THINK_END) return null;
      let reasoning = deltaText;
      let content = '';
      const end = deltaText.indexOf(KIMI_THINK_END);
      const section = deltaText.indexOf(KIMI_TOOL_CALLS_BEGIN);
      if (end !== -1) {
        reasoning = deltaText.slice(0, end);
        content = deltaText.slice(end + KIMI_THINK_END.length);
      } else if (section !== -1) {
        reasoning = deltaText.slice(0, section);
        content = deltaText.slice(section);
      }
      const delta: { reasoning?: string; content?: string } = {};
      if (reasoning !== '') delta.reasoning = reasoning;
      if (content !== '') delta.content = content;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

/** vLLM's `is_reasoning_end` on text: the last of the three markers is `</think>` or the section begin. */
function reasoningEnded(text: string): boolean {
  const start = text.lastIndexOf(KIMI_THINK_START);
  const end = Math.max(text.lastIndexOf(KIMI_THINK_END), text.lastIndexOf(KIMI_TOOL_CALLS_BEGIN));
  return end > start;
}

function orNull(text: string): string | null {
  return text === '' ? null : text;
}
