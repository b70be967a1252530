import { z } from 'zod';
import { TokentapError } from '../../../core/errors/tokentap-error.js';

/**
 * What the Anthropic front door reads of a Messages request, and nothing more: every object is loose, so
 * fields tokentap does not read (cache_control, citations, beta fields) pass validation untouched. Block types
 * tokentap cannot translate are refused (400) rather than silently dropped. Field names follow
 * node_modules/@anthropic-ai/sdk/src/resources/messages/messages.ts.
 */
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal('url'), url: z.string() }),
  ]),
});

const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock]))]).nullish(),
  is_error: z.boolean().nullish(),
});

const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});

const thinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking') });

const userBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolResultBlock]);
const assistantBlock = z.discriminatedUnion('type', [textBlock, thinkingBlock, redactedThinkingBlock, toolUseBlock]);

const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlock)]) }),
  z.looseObject({ role: z.literal('assistant'), content: z.union([z.string(), z.array(assistantBlock)]) }),
  // mid-conversation system messages (beta mid-conversation-system-2026-04-07, sent by Claude Code 2.1.197)
  z.looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textBlock)]) }),
]);

/** Custom tools carry an input_schema; typed (server or Anthropic-defined) tools do not and are dropped later. */
const tool = z
  .looseObject({
    name: z.string(),
    type: z.string().nullish(),
    description: z.string().nullish(),
    input_schema: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((value) => !isCustomTool(value) || value.input_schema !== undefined, {
    message: 'a custom tool needs an input_schema',
    path: ['input_schema'],
  });

const toolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().nullish() }),
  z.looseObject({ type: z.literal('none') }),
]);

const messagesSchema = z.looseObject({
  model: z.string().optional(),
  max_tokens: z.number().int().min(1),
  messages: z.array(message).min(1),
  system: z.union([z.string(), z.array(textBlock)]).nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  thinking: z.looseObject({ type: z.string() }).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: z.number().int().nullish(),
  stream: z.boolean().nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
});

/** count_tokens takes a Messages body without max_tokens */
const countTokensSchema = messagesSchema.extend({ max_tokens: z.number().int().min(1).optional() });

export type AnthropicRequest = z.infer<typeof countTokensSchema>;
export type AnthropicUserBlock = z.infer<typeof userBlock>;
export type AnthropicAssistantBlock = z.infer<typeof assistantBlock>;
export type AnthropicTextBlock = z.infer<typeof textBlock>;
export type AnthropicImageBlock = z.infer<typeof imageBlock>;
export type AnthropicTool = z.infer<typeof tool>;
export type AnthropicToolChoice = z.infer<typeof toolChoice>;

/** @example isCustomTool({ name: 'Bash', input_schema: {} }) // true; isCustomTool({ type: 'web_search_20250305', name: 'web_search' }) // false */
export function isCustomTool(value: { type?: string | null | undefined }): boolean {
  return value.type === undefined || value.type === null || value.type === 'custom';
}

/**
 * Validates a Messages (`endpoint: 'messages'`, max_tokens required) or count_tokens body; throws
 * TT_INVALID_REQUEST naming the first bad field, so nothing is recorded for a malformed request.
 *
 * @example const request = parseAnthropicBody(request.body, 'messages')
 */
export function parseAnthropicBody(body: unknown, endpoint: 'messages' | 'count_tokens'): AnthropicRequest {
  const parsed = (endpoint === 'messages' ? messagesSchema : countTokensSchema).safeParse(body);
  if (!parsed.success) {
    const param = parsed.error.issues[0]?.path.join('.') ?? null;
    throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid Messages request: ${z.prettifyError(parsed.error)}`, param });
  }
  return parsed.data;
}
