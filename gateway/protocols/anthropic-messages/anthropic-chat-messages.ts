import { writeReasoning } from '../../../model-format/backend-fields/read-reasoning.js';
import { backendToolCallId } from './anthropic-ids.js';
import type {
  AnthropicAssistantBlock,
  AnthropicImageBlock,
  AnthropicRequest,
  AnthropicTextBlock,
  AnthropicUserBlock,
} from './anthropic-messages-schema.js';

/** An OpenAI chat message as vLLM reads it. */
export type ChatMessage = Record<string, unknown> & { role: string };

type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/**
 * Claude Code >= 2.1.36 puts `x-anthropic-billing-header: cc_version=…; cch=…;` in system[0]. It is not an
 * instruction to the model, and older versions changed it every request, which breaks prompt prefixes
 * (shared/reference/protocols-backends-gateways.md A.1; Polar strips it too).
 */
const BILLING_HEADER = 'x-anthropic-billing-header:';

/** Marks a failed tool's result for the model, which cannot see Anthropic's `is_error` flag. */
export const TOOL_ERROR_PREFIX = 'Error: ';

/** Text blocks are joined with "\n", as vLLM joins text parts before a string-content template renders them. */
function joinTexts(content: string | AnthropicTextBlock[]): string {
  return typeof content === 'string' ? content : content.map((block) => block.text).join('\n');
}

function systemText(system: AnthropicRequest['system']): string | null {
  if (system === undefined || system === null) return null;
  const blocks = typeof system === 'string' ? [{ type: 'text' as const, text: system }] : system;
  const kept = blocks.filter((block) => !block.text.startsWith(BILLING_HEADER));
  return kept.length === 0 ? null : joinTexts(kept);
}

function imagePart(block: AnthropicImageBlock): ChatPart {
  const source = block.source;
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

/** All-text parts become one string (what vLLM would make of them); parts with images stay a list. */
function partsContent(parts: ChatPart[]): string | ChatPart[] {
  if (parts.every((part) => part.type === 'text')) return parts.map((part) => (part as { text: string }).text).join('\n');
  return parts;
}

type ToolResultBlock = Extract<AnthropicUserBlock, { type: 'tool_result' }>;

/** One tool_result as a `tool` message; its images go to `images` for the user message that follows. */
function toolMessage(block: ToolResultBlock, images: ChatPart[]): ChatMessage {
  const content = block.content ?? '';
  const texts: string[] = [];
  if (typeof content === 'string') texts.push(content);
  else {
    for (const part of content) {
      if (part.type === 'text') texts.push(part.text);
      else images.push(imagePart(part));
    }
  }
  const text = texts.join('\n');
  const id = backendToolCallId(block.tool_use_id);
  return { role: 'tool', tool_call_id: id, content: block.is_error === true ? `${TOOL_ERROR_PREFIX}${text}` : text };
}

/**
 * A user turn: each tool_result becomes a `tool` message (in order, its call's backend id: `backendToolCallId`); text and images, with any images the tool
 * results carried (a tool message holds text only), follow as one user message.
 */
function userMessages(content: string | AnthropicUserBlock[]): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: ChatMessage[] = [];
  const toolImages: ChatPart[] = [];
  const parts: ChatPart[] = [];
  for (const block of content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(imagePart(block));
    else toolMessages.push(toolMessage(block, toolImages));
  }
  const followUp = [...toolImages, ...parts];
  if (followUp.length > 0 || toolMessages.length === 0) toolMessages.push({ role: 'user', content: partsContent(followUp) });
  return toolMessages;
}

/**
 * An assistant turn: text blocks become `content`, thinking blocks the `reasoning` vLLM hands to the template
 * (sent under both names vLLM has read: `reasoning` from PR #27752 on, `reasoning_content` before), tool_use
 * blocks `tool_calls` with the input as a JSON string (each id the backend's again: `backendToolCallId`). redacted_thinking is encrypted Claude reasoning that no
 * open model can read: dropped.
 */
function assistantMessage(content: string | AnthropicAssistantBlock[]): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const block of content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') reasoning.push(block.thinking);
    else if (block.type === 'tool_use') {
      const id = backendToolCallId(block.id);
      toolCalls.push({ id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
    }
  }
  const message: ChatMessage = { role: 'assistant', content: texts.join('\n') };
  if (reasoning.length > 0) writeReasoning(message, reasoning.join('\n'));
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

/**
 * Translates Anthropic's `system` and `messages` into chat messages. The system prompt (billing header block
 * removed) comes first, together with any `role: "system"` messages before the first user or assistant turn;
 * a later system message stays a system message where it was sent, as Anthropic applies it from that point on
 * (Qwen3's template renders a non-first system message in place).
 *
 * @example
 * toChatMessages({ system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] })
 * // [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]
 */
export function toChatMessages(request: Pick<AnthropicRequest, 'system' | 'messages'>): ChatMessage[] {
  const system: string[] = [];
  const top = systemText(request.system);
  if (top !== null) system.push(top);
  const messages: ChatMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') {
      if (messages.length === 0) system.push(joinTexts(message.content));
      else messages.push({ role: 'system', content: joinTexts(message.content) });
    } else if (message.role === 'assistant') {
      messages.push(assistantMessage(message.content));
    } else {
      messages.push(...userMessages(message.content));
    }
  }
  return system.length === 0 ? messages : [{ role: 'system', content: system.join('\n') }, ...messages];
}
