import type { ModelFamily } from '../model-family.js';
import { createHarmonyToolCallStream, parseHarmonyToolCalls } from './parse-harmony-tool-calls.js';
import { renderHarmonyChat } from './render-harmony-chat.js';
import { createHarmonyReasoningStream, splitHarmonyReasoning } from './split-harmony-reasoning.js';

/**
 * gpt-oss (OpenAI's open-weight models, the Harmony format: openai/harmony docs/format.md): reasoning on the
 * `analysis` channel (vLLM's `openai_gptoss` reasoning parser), tool calls as `commentary` messages
 * `to=functions.NAME` ending with `<|call|>` (vLLM's `openai` tool parser), the answer on `final` ending with
 * `<|return|>`. vLLM renders its prompts with openai_harmony, not with a chat template, so the family renders them
 * itself (render-harmony-chat.ts). Harmony drops the analysis before the first final message once the conversation
 * ends with a final answer, and writes a finished answer back with `<|end|>`, not the `<|return|>` the model sampled:
 * token-faithful mode extends the sampled ids instead (docs/model-families.md, gpt-oss).
 *
 * @example familyByName('gpt-oss')?.toolCalls.openai?.parse('<|channel|>commentary to=functions.ls json<|message|>{}', [])
 */
export const gptOssFamily: ModelFamily = {
  name: 'gpt-oss',
  detect: ({ modelType, template }) => modelType === 'gpt_oss' || template.includes('<|channel|>'),
  reasoning: { name: 'openai_gptoss', split: splitHarmonyReasoning, createStream: createHarmonyReasoningStream },
  toolCalls: {
    openai: { parse: (content) => parseHarmonyToolCalls(content), createStream: () => createHarmonyToolCallStream() },
  },
  renderPrompt: renderHarmonyChat,
  rendererName: 'harmony',
  keepsSpecialTokens: true,
  // the arguments come back as vLLM's json.dumps wrote them, not as the model did. A finished answer is written back
  // with <|end|>, not the sampled <|return|> (and its analysis dropped): the answer is found by counting <|end|>, which
  // closes every message (both renderings share the messages up to it), and the next turn extends the sampled ids, so
  // the model's next prompt holds its <|return|> and analysis, as it saw them
  history: { dropsReasoning: true, reserializesToolArguments: true, endOfTurnTokens: ['<|return|>', '<|end|>'] },
};
