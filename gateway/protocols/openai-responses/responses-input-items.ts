import { z } from 'zod';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { isRecord } from '../../../core/json/is-record.js';

/**
 * The Responses API input items tokentap translates to chat messages, validated one by one so a bad item is
 * answered with a 400 naming it (`input[3].call_id`). Item shapes: openai-node `ResponseInputItem`
 * (resources/responses/responses.d.ts) and Codex's `ResponseItem` (codex-rs/protocol/src/models.rs).
 * Loose objects: fields tokentap does not read (`id`, `status`, ...) are allowed and ignored.
 */
const contentPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  refusal: z.string().optional(),
  image_url: z.string().nullish(),
  detail: z.string().nullish(),
});

const partsOrText = z.union([z.string(), z.array(contentPartSchema)]);

const messageSchema = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: partsOrText,
});

const functionCallSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  namespace: z.string().nullish(),
});

const customToolCallSchema = z.looseObject({
  type: z.literal('custom_tool_call'),
  call_id: z.string(),
  name: z.string(),
  input: z.string(),
  namespace: z.string().nullish(),
});

const toolOutputSchema = z.looseObject({
  type: z.enum(['function_call_output', 'custom_tool_call_output']),
  call_id: z.string(),
  output: partsOrText,
});

const reasoningSchema = z.looseObject({
  type: z.literal('reasoning'),
  summary: z.array(z.looseObject({ text: z.string() })).nullish(),
  content: z.array(z.looseObject({ text: z.string() })).nullish(),
});

export type ContentPart = z.infer<typeof contentPartSchema>;
export type MessageItem = z.infer<typeof messageSchema>;
export type FunctionCallItem = z.infer<typeof functionCallSchema>;
export type CustomToolCallItem = z.infer<typeof customToolCallSchema>;
export type ToolOutputItem = z.infer<typeof toolOutputSchema>;
export type ReasoningItem = z.infer<typeof reasoningSchema>;

/** One validated input item; `dropped` holds items of hosted tools tokentap does not serve. */
export type InputItem =
  | { kind: 'message'; item: MessageItem }
  | { kind: 'function_call'; item: FunctionCallItem }
  | { kind: 'custom_tool_call'; item: CustomToolCallItem }
  | { kind: 'tool_output'; item: ToolOutputItem }
  | { kind: 'reasoning'; item: ReasoningItem }
  | { kind: 'dropped'; type: string };

/**
 * Items that only hosted tools produce (web search, file search, code interpreter, ...). Their tools are
 * dropped from the request (the backend cannot run them), so their calls and outputs are dropped too.
 */
const HOSTED_ITEM_TYPES = new Set([
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'computer_call',
  'computer_call_output',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'tool_search_call',
  'tool_search_output',
  'compaction',
]);

const SCHEMAS = {
  message: messageSchema,
  function_call: functionCallSchema,
  custom_tool_call: customToolCallSchema,
  function_call_output: toolOutputSchema,
  custom_tool_call_output: toolOutputSchema,
  reasoning: reasoningSchema,
} as const;

const KINDS: Record<keyof typeof SCHEMAS, InputItem['kind']> = {
  message: 'message',
  function_call: 'function_call',
  custom_tool_call: 'custom_tool_call',
  function_call_output: 'tool_output',
  custom_tool_call_output: 'tool_output',
  reasoning: 'reasoning',
};

/**
 * Validates one input item. A message may omit `type` (openai-node's `EasyInputMessage`). Unknown types are a
 * 400; `item_reference` is refused because tokentap keeps no item store (only whole responses, for
 * `previous_response_id`).
 *
 * @example parseInputItem({ type: 'function_call_output', call_id: 'call_1', output: 'ok' }, 4)
 */
export function parseInputItem(raw: unknown, index: number): InputItem {
  const param = `input[${index}]`;
  if (!isRecord(raw)) throw new TokentapError('TT_INVALID_REQUEST', { message: `${param} must be an object`, param });
  const type = raw.type === undefined && 'role' in raw ? 'message' : raw.type;
  if (typeof type !== 'string') throw new TokentapError('TT_INVALID_REQUEST', { message: `${param}.type must be a string`, param: `${param}.type` });
  if (HOSTED_ITEM_TYPES.has(type)) return { kind: 'dropped', type };
  if (type === 'item_reference') {
    throw new TokentapError('TT_UNSUPPORTED_FEATURE', {
      message: `${param}: item_reference is not supported; send the item itself or use previous_response_id`,
      param,
    });
  }
  if (!(type in SCHEMAS))
    throw new TokentapError('TT_INVALID_REQUEST', {
      message: `${param}.type ${JSON.stringify(type.slice(0, 80))} is not an input item type tokentap knows`,
      param: `${param}.type`,
    });
  const key = type as keyof typeof SCHEMAS;
  const parsed = SCHEMAS[key].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = [param, ...(issue?.path ?? []).map(String)].join('.');
    throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid ${type} item at ${at}: ${issue?.message ?? 'bad shape'}`, param: at });
  }
  return { kind: KINDS[key], item: parsed.data } as InputItem;
}

/**
 * The request's `input` as a list of raw items: a plain string is one user message.
 * @example normalizeInput('hi') // [{ type: 'message', role: 'user', content: 'hi' }]
 */
export function normalizeInput(input: string | unknown[] | null | undefined): unknown[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return input;
}
