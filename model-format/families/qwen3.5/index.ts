import { renderChatTemplate } from '../../chat-template/render-chat-template.js';
import type { ModelFamily, ModelFolderFacts } from '../model-family.js';
import { createQwen3CoderToolCallStream, parseQwen3CoderToolCalls } from '../qwen3/parse-qwen3-coder-tool-calls.js';
import { createQwen35ReasoningParser } from './create-qwen35-reasoning-parser.js';

// Qwen3.5 (dense and MoE; the `_text` configs are their language models alone)
const MODEL_TYPE = /^qwen3_5(_moe)?(_text)?$/;

/**
 * True for a Qwen3.5 template: ChatML that writes Qwen3-Coder's XML calls (`<function=`) and opens the think block in
 * the prompt (`<think>`); Qwen3's template writes Hermes JSON calls, Qwen3-Coder's has no `<think>`.
 *
 * @example isQwen35Template(readFileSync('qwen-3.5-0.8b.jinja', 'utf8')) // true
 */
export function isQwen35Template(template: string): boolean {
  return template.includes('<|im_start|>') && template.includes('<function=') && template.includes('<think>');
}

/**
 * Whether the template opens a think block when the request does not say (`enable_thinking` unset): it renders a
 * one-message prompt and reads its end (`<think>\n`: on; `</think>\n\n`: off). Null when it cannot tell.
 *
 * @example templateThinksByDefault(qwen35Template) // false for Qwen3.5-0.8B's
 */
export function templateThinksByDefault(template: string): boolean | null {
  let prompt: string;
  try {
    prompt = renderChatTemplate({ template, messages: [{ role: 'user', content: 'Hi' }], addGenerationPrompt: true });
  } catch {
    return null;
  }
  if (prompt.endsWith('</think>\n\n')) return false;
  return prompt.endsWith('<think>\n') ? true : null;
}

const THINKING_ON = createQwen35ReasoningParser({ thinkingByDefault: true });
const THINKING_OFF = createQwen35ReasoningParser({ thinkingByDefault: false });

/**
 * Qwen3.5: ChatML like Qwen3, but the generation prompt holds `<think>\n` (thinking on) or `<think>\n\n</think>\n\n`
 * (off), so the model writes no `<think>` itself; tool calls are Qwen3-Coder's XML (`qwen3-coder`, vLLM's
 * `qwen3_coder`). Reasoning is vLLM's `qwen3` parser as it reads Qwen3.5 (create-qwen35-reasoning-parser.ts), thinking
 * on unless `enable_thinking` is false, or by the folder template's own default (`forFolder`). Its template keeps
 * the think block only for turns after the last user query and writes arguments back as `<parameter=K>` values.
 * Detected from `model_type` `qwen3_5` / `qwen3_5_moe` or the template's markers.
 *
 * @example familyByName('qwen3.5')?.reasoning?.split('hm\n</think>\n\nHi') // { reasoning: 'hm\n', content: '\n\nHi' }
 */
export const qwen35Family: ModelFamily = {
  name: 'qwen3.5',
  detect: ({ modelType, template }) => (modelType !== null && MODEL_TYPE.test(modelType)) || isQwen35Template(template),
  reasoning: THINKING_ON,
  toolCalls: { 'qwen3-coder': { parse: parseQwen3CoderToolCalls, createStream: createQwen3CoderToolCallStream } },
  forFolder: (facts: ModelFolderFacts) =>
    facts.template !== '' && templateThinksByDefault(facts.template) === false ? { ...qwen35Family, reasoning: THINKING_OFF } : qwen35Family,
  history: { dropsReasoning: true, reserializesToolArguments: true },
};
