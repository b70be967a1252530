import type { ReasoningRequest } from '../model-family.js';
import { createDeepSeekR1ReasoningStream, splitDeepSeekR1Reasoning } from './split-deepseek-r1-reasoning.js';

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
 * (the prompt ends `<｜Assistant｜><think>`): vLLM's `deepseek_r1` parser, to which `deepseek_v3` hands the text
 * (split-deepseek-r1-reasoning.ts): a leading `<think>` is dropped, the text before `</think>` is reasoning, the text
 * after it content (null when empty); without `</think>` all of it is reasoning.
 *
 * @example
 * splitDeepSeekV3Reasoning('weigh it</think>Yes.', { chatTemplateKwargs: { thinking: true } }); // { reasoning: 'weigh it', content: 'Yes.' }
 */
export function splitDeepSeekV3Reasoning(text: string, request?: ReasoningRequest): { reasoning: string | null; content: string | null } {
  if (!deepSeekThinking(request)) return { reasoning: null, content: text };
  return splitDeepSeekR1Reasoning(text);
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface DeepSeekV3ReasoningStream {
  push(deltaText: string): { reasoning?: string; content?: string } | null;
}

/**
 * The streaming half of vLLM's `deepseek_v3` reasoning parser. Thinking off: every delta is content. Thinking on:
 * `deepseek_r1`'s stream (createDeepSeekR1ReasoningStream): a delta that is only a tag yields nothing; a delta holding
 * `</think>` splits there (reasoning before, content after); before `</think>` all is reasoning, after it all content.
 *
 * @example
 * const stream = createDeepSeekV3ReasoningStream({ chatTemplateKwargs: { thinking: true } });
 * ['hm', '</think>', 'Yes'].map((delta) => stream.push(delta)); // [{ reasoning: 'hm' }, null, { content: 'Yes' }]
 */
export function createDeepSeekV3ReasoningStream(request?: ReasoningRequest): DeepSeekV3ReasoningStream {
  if (!deepSeekThinking(request)) return { push: (deltaText) => (deltaText === '' ? null : { content: deltaText }) };
  return createDeepSeekR1ReasoningStream();
}

function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== '';
}
