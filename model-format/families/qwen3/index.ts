import type { ModelFamily } from '../model-family.js';
import { createHermesToolCallStream } from './create-hermes-tool-call-stream.js';
import { createQwen3ReasoningStream } from './create-qwen3-reasoning-stream.js';
import { parseHermesToolCalls } from './parse-hermes-tool-calls.js';
import { createQwen3CoderToolCallStream, parseQwen3CoderToolCalls } from './parse-qwen3-coder-tool-calls.js';
import { isQwen35Template } from '../qwen3.5/index.js';
import { splitQwen3Reasoning } from './split-qwen3-reasoning.js';

// Qwen2.5 and Qwen3 (dense, MoE, Next) write Hermes tool calls inside ChatML; Qwen3.5 (`qwen3_5*`) is the qwen3.5 family
const MODEL_TYPE = /^qwen(2|2_moe|3|3_moe|3_next)$/;

/**
 * Qwen3 and Qwen3-Coder: `<think>` reasoning (vLLM's `qwen3` reasoning parser), Hermes `<tool_call>` JSON (`hermes`,
 * the default) or Qwen3-Coder's `<function=…><parameter=…>` XML (`qwen3-coder`). Its template drops the reasoning of
 * earlier turns and writes tool-call arguments with `tojson`.
 *
 * @example familyByName('qwen3')?.toolCalls.hermes?.parse('<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>', [])
 */
export const qwen3Family: ModelFamily = {
  name: 'qwen3',
  detect: ({ modelType, template }) =>
    (modelType !== null && MODEL_TYPE.test(modelType)) ||
    (template.includes('<|im_start|>') && template.includes('<tool_call>') && !isQwen35Template(template)),
  reasoning: { name: 'qwen3', split: splitQwen3Reasoning, createStream: createQwen3ReasoningStream },
  toolCalls: {
    hermes: { parse: (content) => parseHermesToolCalls(content), createStream: () => createHermesToolCallStream() },
    'qwen3-coder': { parse: parseQwen3CoderToolCalls, createStream: createQwen3CoderToolCallStream },
  },
  history: { dropsReasoning: true, reserializesToolArguments: true },
};
