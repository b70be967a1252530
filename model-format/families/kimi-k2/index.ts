import type { ModelFamily } from '../model-family.js';
import { createKimiK2ToolCallStream, KIMI_TOOL_CALLS_BEGIN, parseKimiK2ToolCalls } from './parse-kimi-k2-tool-calls.js';
import { createKimiK2ReasoningStream, splitKimiK2Reasoning } from './split-kimi-k2-reasoning.js';

/**
 * Kimi K2 (`model_type` `kimi_k2`): tool calls in `<|tool_calls_section_begin|>…<|tool_calls_section_end|>`, each
 * `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>` (vLLM's `kimi_k2` tool
 * parser; the call id is the `functions.NAME:IDX` the model wrote) and, for K2-Thinking, `<think>` reasoning (vLLM's
 * `kimi_k2` reasoning parser; K2-Instruct runs with `--reasoning-parser none`). No official template could be had
 * here: the history flags are the safe ones. Detected from `model_type` `kimi_k2` or the section marker in a template.
 *
 * @example familyByName('kimi-k2')?.toolCalls['kimi-k2']?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const kimiK2Family: ModelFamily = {
  name: 'kimi-k2',
  detect: ({ modelType, template }) => modelType === 'kimi_k2' || template.includes(KIMI_TOOL_CALLS_BEGIN),
  // the section and call markers are special tokens in Kimi's vocabulary: the text is read with them
  keepsSpecialTokens: true,
  reasoning: { name: 'kimi-k2', split: splitKimiK2Reasoning, createStream: createKimiK2ReasoningStream },
  toolCalls: {
    'kimi-k2': { parse: (content) => parseKimiK2ToolCalls(content), createStream: () => createKimiK2ToolCallStream() },
  },
  history: { dropsReasoning: true, reserializesToolArguments: true },
};
