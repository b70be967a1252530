import type { ModelFamily } from '../model-family.js';
import { createDeepSeekV31ToolCallStream, parseDeepSeekV31ToolCalls, TOOL_CALLS_BEGIN } from './parse-deepseek-v31-tool-calls.js';
import { createDeepSeekV3ReasoningStream, splitDeepSeekV3Reasoning } from './split-deepseek-v3-reasoning.js';

// DeepSeek V3 / V3.1 (`deepseek_v3`) and V3.2 (`deepseek_v32`)
const MODEL_TYPES = new Set(['deepseek_v3', 'deepseek_v32']);
// the first DeepSeek V3 template writes `function<｜tool▁sep｜>NAME` and fenced JSON: another syntax, not claimed
const V3_TOOL_SYNTAX = "'<｜tool▁sep｜>' + tool['function']['name']";

/**
 * DeepSeek V3.1 and V3.2 with V3.1 tool calls (vLLM's `deepseek_v31` tool parser and `deepseek_v3` reasoning parser):
 * `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`, parallel
 * calls chained; thinking is off unless `chat_template_kwargs.thinking` (the prompt then ends with `<think>` and the
 * reply's reasoning ends at `</think>`). Its templates (vLLM's examples/tool_chat_template_deepseekv31.jinja, SGLang's
 * V3.2 one) keep only the text after `</think>` of earlier turns and write arguments with `tojson`.
 * Detected from a template with V3.1's tool markers, or `model_type` `deepseek_v3` / `deepseek_v32` without a template.
 *
 * @example familyByName('deepseek-v3')?.toolCalls['deepseek-v31']?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const deepSeekV3Family: ModelFamily = {
  name: 'deepseek-v3',
  detect: ({ modelType, template }) =>
    template === ''
      ? modelType !== null && MODEL_TYPES.has(modelType)
      : template.includes(TOOL_CALLS_BEGIN) && template.includes('<｜Assistant｜>') && !template.includes(V3_TOOL_SYNTAX),
  reasoning: { name: 'deepseek-v3', split: splitDeepSeekV3Reasoning, createStream: createDeepSeekV3ReasoningStream },
  toolCalls: {
    'deepseek-v31': { parse: (content) => parseDeepSeekV31ToolCalls(content), createStream: () => createDeepSeekV31ToolCallStream() },
  },
  history: { dropsReasoning: true, reserializesToolArguments: true },
};
