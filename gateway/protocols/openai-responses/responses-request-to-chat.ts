import { isRecord } from '../../../core/json/is-record.js';
import { responsesInputToMessages } from './responses-input-to-messages.js';
import { translateResponsesTools, translateToolChoice, type ResponsesToolNames } from './responses-tools.js';

/** What tokentap did with a Responses request beyond the plain translation; recorded as call metadata. */
export interface ResponsesTranslationNotes {
  /** hosted tools the backend cannot run, left out of the chat request */
  droppedTools: string[];
  /** input items left out (hosted-tool calls, encrypted-only reasoning) */
  droppedItems: string[];
  /** request fields read or echoed but not forwarded to the backend (`store`, `include`, `prompt_cache_key` ...) */
  notForwarded: string[];
  /** the earlier response whose history was prepended */
  previousResponseId?: string;
}

export interface ResponsesChatRequest {
  chatBody: Record<string, unknown>;
  names: ResponsesToolNames;
  notes: ResponsesTranslationNotes;
}

/** Fields the translation itself consumes. */
const TRANSLATED = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'reasoning',
  'text',
  'stream',
  'previous_response_id',
]);

/**
 * vLLM sampling extras a harness may send beside a Responses body (vLLM's own /v1/responses accepts them):
 * forwarded unchanged. `chat_template_kwargs` lets a harness set the template's switches itself.
 */
const VLLM_EXTRAS = [
  'top_k',
  'min_p',
  'seed',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'chat_template_kwargs',
] as const;

/** `text.format` to chat's `response_format`: json_schema and json_object carry over; text needs nothing. */
function responseFormat(text: unknown): Record<string, unknown> | undefined {
  const format = isRecord(text) && isRecord(text.format) ? text.format : undefined;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type !== 'json_schema') return undefined;
  const jsonSchema: Record<string, unknown> = { name: typeof format.name === 'string' ? format.name : 'response' };
  if (typeof format.description === 'string') jsonSchema.description = format.description;
  if (format.schema !== undefined) jsonSchema.schema = format.schema;
  if (typeof format.strict === 'boolean') jsonSchema.strict = format.strict;
  return { type: 'json_schema', json_schema: jsonSchema };
}

/**
 * Builds the chat completion request for a Responses request whose input items are already resolved
 * (`previous_response_id` history prepended). The thinking switch and tokentap's injections are applied by the
 * caller (prepareChatRequest, applyThinkingSwitch), as for every chat call.
 *
 * | Responses                    | chat                                         |
 * |------------------------------|----------------------------------------------|
 * | instructions + input items   | messages (responses-input-to-messages.ts)    |
 * | tools, tool_choice           | tools, tool_choice (responses-tools.ts)      |
 * | parallel_tool_calls          | parallel_tool_calls                          |
 * | max_output_tokens            | max_tokens                                   |
 * | temperature, top_p           | temperature, top_p                           |
 * | text.format                  | response_format                              |
 * | reasoning.effort             | chat_template_kwargs.enable_thinking (caller)|
 *
 * @example responsesRequestToChat({ model: 'm', input: 'hi' }, [{ role: 'user', content: 'hi' }]).chatBody.messages
 */
export function responsesRequestToChat(body: Record<string, unknown>, inputItems: unknown[]): ResponsesChatRequest {
  const { chatTools, names, droppedTools } = translateResponsesTools(body.tools as unknown[] | null | undefined);
  const instructions = typeof body.instructions === 'string' ? body.instructions : undefined;
  const { messages, droppedItems } = responsesInputToMessages(inputItems, instructions, names);
  const chatBody: Record<string, unknown> = { messages };
  if (typeof body.model === 'string') chatBody.model = body.model;
  if (body.stream === true) chatBody.stream = true;
  if (chatTools.length > 0) {
    chatBody.tools = chatTools;
    // vLLM refuses a tool_choice without tools, so a choice is only sent with the tools it chooses among
    const toolChoice = translateToolChoice(body.tool_choice, names);
    if (toolChoice !== undefined) chatBody.tool_choice = toolChoice;
  }
  if (typeof body.parallel_tool_calls === 'boolean') chatBody.parallel_tool_calls = body.parallel_tool_calls;
  if (typeof body.max_output_tokens === 'number') chatBody.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') chatBody.temperature = body.temperature;
  if (typeof body.top_p === 'number') chatBody.top_p = body.top_p;
  const format = responseFormat(body.text);
  if (format !== undefined) chatBody.response_format = format;
  for (const key of VLLM_EXTRAS) if (body[key] !== undefined && body[key] !== null) chatBody[key] = body[key];
  const passed = new Set<string>([...TRANSLATED, ...VLLM_EXTRAS]);
  const notForwarded = Object.keys(body).filter((key) => !passed.has(key));
  if (body.tool_choice !== undefined && body.tool_choice !== null && chatBody.tool_choice === undefined) notForwarded.push('tool_choice');
  const notes: ResponsesTranslationNotes = { droppedTools, droppedItems, notForwarded };
  if (typeof body.previous_response_id === 'string') notes.previousResponseId = body.previous_response_id;
  return { chatBody, names, notes };
}
