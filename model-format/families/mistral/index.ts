import type { ModelFamily } from '../model-family.js';
import { createMistralToolCallStream, parseMistralToolCalls, TOOL_CALLS } from './parse-mistral-tool-calls.js';

/**
 * Mistral with tool calls as tokenizers before v11 write them (vLLM's `mistral` tool parser; no reasoning):
 * `content[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]`, parallel calls in the one list, ids of nine letters and
 * digits. `[TOOL_CALLS]` is a special token, so the output is read with special tokens (vLLM asks
 * `skip_special_tokens: false` for a Mistral model served with its chat template). Its templates (vLLM's
 * examples/tool_chat_template_mistral.jinja and tool_chat_template_mistral3.jinja) write a turn with calls as the
 * calls only (its text dropped), from `tojson` and with each call's id added, so turns are extended from their ids.
 * Detected from a template with `[TOOL_CALLS]` and `[AVAILABLE_TOOLS]`, or `model_type` `mistral` without a template.
 *
 * @example familyByName('mistral')?.toolCalls.mistral?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const mistralFamily: ModelFamily = {
  name: 'mistral',
  detect: ({ modelType, template }) =>
    template === '' ? modelType === 'mistral' : template.includes(TOOL_CALLS) && template.includes('[AVAILABLE_TOOLS]'),
  reasoning: null,
  toolCalls: {
    mistral: { parse: (content) => parseMistralToolCalls(content), createStream: () => createMistralToolCallStream() },
  },
  keepsSpecialTokens: true,
  history: { dropsReasoning: false, reserializesToolArguments: true },
};
