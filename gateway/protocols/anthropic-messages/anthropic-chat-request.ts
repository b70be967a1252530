import { applyThinkingSwitch, enableThinkingFor } from '../../backends/thinking-switch.js';
import { isCustomTool, type AnthropicRequest, type AnthropicTool, type AnthropicToolChoice } from './anthropic-messages-schema.js';
import { toChatMessages } from './anthropic-chat-messages.js';

/** Top-level fields the translation reads; any other field is recorded by name, never forwarded. */
const READ_FIELDS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'stream',
  'metadata',
]);

export interface TranslatedAnthropicRequest {
  /** an OpenAI chat request for vLLM, before tokentap's injections (prepareChatRequest) */
  chatBody: Record<string, unknown>;
  /** call metadata: what was dropped or only recorded */
  metadata: Record<string, unknown>;
}

/** Custom tools become function tools; typed tools (web_search_*, code_execution_*, bash_*, ...) have no schema here. */
function toChatTools(tools: AnthropicTool[]): { chatTools: Array<Record<string, unknown>>; dropped: Array<{ name: string; type: string }> } {
  const chatTools: Array<Record<string, unknown>> = [];
  const dropped: Array<{ name: string; type: string }> = [];
  for (const tool of tools) {
    if (!isCustomTool(tool)) {
      dropped.push({ name: tool.name, type: String(tool.type) });
      continue;
    }
    const definition: Record<string, unknown> = { name: tool.name };
    if (typeof tool.description === 'string') definition.description = tool.description;
    definition.parameters = tool.input_schema;
    chatTools.push({ type: 'function', function: definition });
  }
  return { chatTools, dropped };
}

/** auto/any/tool/none -> auto/required/{function}/none; `disable_parallel_tool_use` -> `parallel_tool_calls: false`. */
function applyToolChoice(chatBody: Record<string, unknown>, choice: AnthropicToolChoice): void {
  if (choice.type === 'auto') chatBody.tool_choice = 'auto';
  else if (choice.type === 'any') chatBody.tool_choice = 'required';
  else if (choice.type === 'none') chatBody.tool_choice = 'none';
  else chatBody.tool_choice = { type: 'function', function: { name: choice.name } };
  if ('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true) chatBody.parallel_tool_calls = false;
}

function copySampling(request: AnthropicRequest, chatBody: Record<string, unknown>): void {
  if (request.max_tokens !== undefined) chatBody.max_tokens = request.max_tokens;
  for (const key of ['temperature', 'top_p', 'top_k'] as const) {
    const value = request[key];
    if (typeof value === 'number') chatBody[key] = value;
  }
  if (Array.isArray(request.stop_sequences) && request.stop_sequences.length > 0) chatBody.stop = request.stop_sequences;
}

function recordedMetadata(request: AnthropicRequest, dropped: Array<{ name: string; type: string }>): Record<string, unknown> {
  const body = request as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  if (dropped.length > 0) metadata.droppedTools = dropped;
  if (request.thinking) metadata.thinkingType = request.thinking.type;
  if (typeof request.metadata?.user_id === 'string') metadata.anthropicUserId = request.metadata.user_id.slice(0, 1024);
  const ignored = Object.keys(body).filter((key) => !READ_FIELDS.has(key));
  if (ignored.length > 0) metadata.ignoredFields = ignored;
  return metadata;
}

/**
 * Translates an Anthropic Messages request into the chat request the backend gets: messages (see
 * toChatMessages), custom tools, tool_choice (omitted when no tool is left: Claude Code sends `tools: []` on
 * compaction turns), sampling fields, stop sequences and the thinking switch (one table, thinking-switch.ts).
 * A conversation that ends with an assistant turn is a prefill: the backend continues that message.
 * `metadata`, `context_management`, `output_config` and other fields are recorded, not forwarded.
 *
 * @example
 * const { chatBody, metadata } = toChatRequest(parseAnthropicBody(body, 'messages'))
 */
export function toChatRequest(request: AnthropicRequest): TranslatedAnthropicRequest {
  const chatBody: Record<string, unknown> = {};
  if (request.model !== undefined) chatBody.model = request.model;
  chatBody.messages = toChatMessages(request);
  const { chatTools, dropped } = toChatTools(request.tools ?? []);
  if (chatTools.length > 0) {
    chatBody.tools = chatTools;
    if (request.tool_choice) applyToolChoice(chatBody, request.tool_choice);
  }
  copySampling(request, chatBody);
  if (request.stream === true) chatBody.stream = true;
  if (request.messages.at(-1)?.role === 'assistant') {
    // vLLM's prefill switch: render the last assistant turn open and continue it
    chatBody.add_generation_prompt = false;
    chatBody.continue_final_message = true;
  }
  applyThinkingSwitch(chatBody, enableThinkingFor({ protocol: 'anthropic', thinking: request.thinking }));
  return { chatBody, metadata: recordedMetadata(request, dropped) };
}
