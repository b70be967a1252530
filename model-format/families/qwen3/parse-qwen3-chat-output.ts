import { parseHermesToolCalls, type ParsedToolCall } from './parse-hermes-tool-calls.js';
import { splitQwen3Reasoning } from './split-qwen3-reasoning.js';

export interface Qwen3ChatOutput {
  reasoning: string | null;
  content: string | null;
  /** empty when tool parsing was off or nothing parsed */
  toolCalls: ParsedToolCall[];
}

export interface ParseQwen3ChatOutputOptions {
  /** run the Hermes tool parser (vLLM does when the request has tools and `tool_choice` is not "none") */
  parseToolCalls: boolean;
}

/**
 * Parses a whole Qwen3 completion into the fields of an assistant message, in vLLM's order: the reasoning
 * parser first, then the tool parser on the content that remains (tool parsers never see reasoning).
 *
 * @example
 * parseQwen3ChatOutput('<think>\nx\n</think>\n\n<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>',
 *   { parseToolCalls: true });
 * // { reasoning: '\nx\n', content: '\n\n', toolCalls: [{ ..., function: { name: 'ls', arguments: '{}' } }] }
 */
export function parseQwen3ChatOutput(text: string, options: ParseQwen3ChatOutputOptions): Qwen3ChatOutput {
  const { reasoning, content } = splitQwen3Reasoning(text);
  if (!options.parseToolCalls || content === null) return { reasoning, content, toolCalls: [] };
  const tools = parseHermesToolCalls(content);
  return { reasoning, content: tools.content, toolCalls: tools.toolCalls };
}
