import type { ModelFamily } from '../model-family.js';
import { createLlama3JsonToolCallStream, parseLlama3JsonToolCalls } from './parse-llama3-json-tool-calls.js';

/**
 * Llama 3.1, 3.2 and 3.3 with JSON tool calls (vLLM's `llama3_json` tool parser; no reasoning): a call is the turn's
 * whole text, `{"name": …, "parameters": {…}}`, perhaps after `<|python_tag|>`, ending with `<|eot_id|>` (built-in
 * tools end with `<|eom_id|>`). The JSON templates (vLLM's examples/tool_chat_template_llama3.1_json.jinja) take one
 * tool call per assistant turn and drop an assistant turn's text when it has a call; they write arguments with `tojson`.
 *
 * @example familyByName('llama3')?.toolCalls['llama3-json']?.parse('{"name": "ls", "parameters": {}}', [])
 */
export const llama3Family: ModelFamily = {
  name: 'llama3',
  detect: ({ modelType, template }) => template.includes('<|start_header_id|>') || (modelType === 'llama' && template === ''),
  reasoning: null,
  toolCalls: {
    'llama3-json': { parse: (content) => parseLlama3JsonToolCalls(content), createStream: () => createLlama3JsonToolCallStream() },
  },
  // a turn ended with <|eom_id|> (built-in tools, `Environment: ipython`) is written back with <|eot_id|> by the JSON
  // templates: it is found by counting both, and extended from the sampled ids
  history: { dropsReasoning: false, reserializesToolArguments: true, endOfTurnTokens: ['<|eot_id|>', '<|eom_id|>'] },
};
