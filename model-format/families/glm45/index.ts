import type { ModelFamily } from '../model-family.js';
import { createGlm45ToolCallStream, parseGlm45ToolCalls } from './parse-glm45-tool-calls.js';
import { createGlm45ReasoningStream, splitGlm45Reasoning } from './split-glm45-reasoning.js';

/**
 * GLM-4.5 / 4.6 (`model_type` `glm4_moe`): `<think>` reasoning (vLLM's `glm45` reasoning parser) and XML-ish tool
 * calls, `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>` (vLLM's `glm45` tool parser).
 * History as GLM-4.6's template writes it (test/fixtures/chat-templates/glm-4.6.jinja): reasoning kept only for turns
 * after the last user message, calls rewritten from their parsed arguments, and no token after a turn: the model stops
 * at the next message's role token (`<|observation|>` before tool results, `<|user|>` after an answer; generation_config
 * lists both besides `<|endoftext|>`), which the template writes as that message's opening. The output is read with
 * its special tokens, as vLLM's glm45 tool parser asks (`skip_special_tokens: false` for a request with tools).
 * Detected from `model_type` `glm4_moe`, or a template with `<arg_key>` and `<tool_call>` that is not ChatML.
 *
 * @example familyByName('glm45')?.toolCalls.glm45?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const glm45Family: ModelFamily = {
  name: 'glm45',
  detect: ({ modelType, template }) =>
    modelType === 'glm4_moe' || (template.includes('<arg_key>') && template.includes('<tool_call>') && !template.includes('<|im_start|>')),
  reasoning: { name: 'glm45', split: (text) => splitGlm45Reasoning(text), createStream: () => createGlm45ReasoningStream() },
  toolCalls: {
    glm45: { parse: parseGlm45ToolCalls, createStream: createGlm45ToolCallStream },
  },
  keepsSpecialTokens: true,
  history: {
    dropsReasoning: true,
    reserializesToolArguments: true,
    nextRoleTokens: ['<|system|>', '<|user|>', '<|assistant|>', '<|observation|>'],
  },
};
