import type { ModelFamily } from '../model-family.js';
import { createKimiK2ToolCallStream, KIMI_TOOL_CALLS_BEGIN, parseKimiK2ToolCalls } from './parse-kimi-k2-tool-calls.js';
import { createKimiK2ReasoningStream, KIMI_THINK_START, splitKimiK2Reasoning } from './split-kimi-k2-reasoning.js';

// every Kimi template writes it between a message's role and its content; the first K2-Instruct one has no call markers
const KIMI_ROLE_END = '<|im_middle|>';

/**
 * Kimi K2 (`model_type` `kimi_k2`): tool calls in `<|tool_calls_section_begin|>…<|tool_calls_section_end|>`, each
 * `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>` (vLLM's `kimi_k2` tool
 * parser; the call id is the `functions.NAME:IDX` the model wrote, IDX counting the conversation's calls) and, for
 * K2-Thinking, `<think>` reasoning (vLLM's `kimi_k2` reasoning parser). A folder whose template writes no `<think>`
 * (K2-Instruct's) reads no reasoning (`forFolder`: vLLM runs K2-Instruct without a reasoning parser). Moonshot's
 * templates (test/fixtures/chat-templates/SOURCES.md): K2-Thinking's writes earlier turns `<think></think>CONTENT`
 * (reasoning dropped up to the last answer), calls back with their ids and `tojson` arguments (vLLM hands the template
 * parsed arguments), results as `## Return of ID`; the first K2-Instruct one writes content only. Each message ends
 * with `<|im_end|>`, where the model ends its turn (generation_config's stop id) unless it samples the tokenizer's
 * `[EOS]`. Detected from `model_type` `kimi_k2`, or a template's `<|im_middle|>` or section marker.
 *
 * @example familyByName('kimi-k2')?.toolCalls['kimi-k2']?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const kimiK2Family: ModelFamily = {
  name: 'kimi-k2',
  detect: ({ modelType, template }) => modelType === 'kimi_k2' || template.includes(KIMI_TOOL_CALLS_BEGIN) || template.includes(KIMI_ROLE_END),
  // the section and call markers are special tokens in Kimi's vocabulary: the text is read with them
  keepsSpecialTokens: true,
  reasoning: { name: 'kimi-k2', split: splitKimiK2Reasoning, createStream: createKimiK2ReasoningStream },
  toolCalls: {
    'kimi-k2': { parse: (content) => parseKimiK2ToolCalls(content), createStream: () => createKimiK2ToolCallStream() },
  },
  forFolder: (facts) => (facts.template !== '' && !facts.template.includes(KIMI_THINK_START) ? { ...kimiK2Family, reasoning: null } : kimiK2Family),
  // vLLM stops Kimi at the tokenizer's EOS ([EOS]) and at generation_config's <|im_end|>; the template writes <|im_end|>
  history: { dropsReasoning: true, reserializesToolArguments: true, endOfTurnTokens: ['<|im_end|>', '[EOS]'] },
};
