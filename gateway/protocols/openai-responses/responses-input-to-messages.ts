import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { writeReasoning } from '../../../model-format/backend-fields/read-reasoning.js';
import { parseInputItem, type ContentPart, type InputItem, type MessageItem, type ReasoningItem } from './responses-input-items.js';
import type { ResponsesToolNames } from './responses-tools.js';

export type ChatMessage = Record<string, unknown> & { role: string };

/** One assistant turn being gathered: a response's reasoning, text and tool calls are one chat message. */
interface AssistantDraft {
  reasoning?: string;
  content?: string;
  toolCalls: Array<Record<string, unknown>>;
}

export interface TranslatedInput {
  messages: ChatMessage[];
  /** input items tokentap left out, by type (hosted-tool calls, reasoning with only encrypted content) */
  droppedItems: string[];
}

/** Text parts become text; images become chat image parts; files and audio cannot reach a chat backend. */
function chatPart(part: ContentPart, param: string): Record<string, unknown> {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      if (part.text === undefined)
        throw new TokentapError('TT_INVALID_REQUEST', { message: `${param}.text must be a string`, param: `${param}.text` });
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal ?? part.text ?? '' };
    case 'input_image':
      if (typeof part.image_url !== 'string') {
        throw new TokentapError('TT_UNSUPPORTED_FEATURE', {
          message: `${param}: only images given by image_url (a URL or data URL) can be forwarded`,
          param,
        });
      }
      return { type: 'image_url', image_url: part.detail ? { url: part.image_url, detail: part.detail } : { url: part.image_url } };
    case 'input_file':
    case 'input_audio':
      throw new TokentapError('TT_UNSUPPORTED_FEATURE', { message: `${param}: ${part.type} parts cannot be forwarded to a chat backend`, param });
    default:
      throw new TokentapError('TT_INVALID_REQUEST', {
        message: `${param}.type ${JSON.stringify(part.type.slice(0, 80))} is not a content part type`,
        param: `${param}.type`,
      });
  }
}

/** Chat content: one text part stays a string; several parts stay parts (vLLM joins text parts with "\n"). */
function chatContent(content: string | ContentPart[], param: string): string | Array<Record<string, unknown>> {
  if (typeof content === 'string') return content;
  const parts = content.map((part, index) => chatPart(part, `${param}[${index}]`));
  if (parts.length === 1 && parts[0]?.type === 'text') return parts[0].text as string;
  return parts;
}

/** Plain text of a message, for the merged system message and assistant text (images are not allowed there). */
function plainText(content: string | ContentPart[], param: string, separator: string): string {
  const chat = chatContent(content, param);
  if (typeof chat === 'string') return chat;
  return chat
    .map((part, index) => {
      if (part.type !== 'text')
        throw new TokentapError('TT_UNSUPPORTED_FEATURE', {
          message: `${param}[${index}]: only text can go in this message`,
          param: `${param}[${index}]`,
        });
      return part.text as string;
    })
    .join(separator);
}

/** A reasoning item's text: its raw `content` when present (what this gateway returns), else its summaries. */
function reasoningText(item: ReasoningItem): string {
  const content = (item.content ?? []).map((part) => part.text).join('');
  if (content !== '') return content;
  return (item.summary ?? []).map((part) => part.text).join('\n\n');
}

/**
 * Translates Responses input items (after `previous_response_id` history is prepended) to chat messages:
 * - `instructions` and the leading run of system/developer messages merge into ONE leading system message
 *   (joined with a blank line; Qwen3's template renders one system message first). A system/developer message
 *   later in the conversation stays in place as a `system` message: moving it to the front would rewrite the
 *   start of every later prompt and break the token chain of the trajectory.
 * - a response's reasoning, text and tool calls (consecutive items) become ONE assistant message with
 *   `reasoning` (+ `reasoning_content`), `content` and `tool_calls`, so the template renders the turn as the model
 *   wrote it (Qwen3's template keeps reasoning only for turns after the last user message).
 * - custom tool calls become function calls with arguments `{"input": ...}`; outputs become `tool` messages.
 *
 * @example responsesInputToMessages([{ role: 'user', content: 'hi' }], 'Be brief', names).messages[0] // { role: 'system', content: 'Be brief' }
 */
export function responsesInputToMessages(rawItems: unknown[], instructions: string | undefined, names: ResponsesToolNames): TranslatedInput {
  const items = rawItems.map((raw, index) => parseInputItem(raw, index));
  const systemTexts: string[] = instructions === undefined || instructions === '' ? [] : [instructions];
  const messages: ChatMessage[] = [];
  const droppedItems: string[] = [];
  let draft: AssistantDraft | null = null;
  const closeDraft = (): void => {
    if (draft !== null) messages.push(assistantMessage(draft));
    draft = null;
  };
  let leading = true;
  items.forEach((entry, index) => {
    const param = `input[${index}]`;
    if (entry.kind === 'message' && isSystemRole(entry.item) && leading) {
      systemTexts.push(plainText(entry.item.content, `${param}.content`, '\n'));
      return;
    }
    if (entry.kind !== 'dropped') leading = false;
    draft = translateItem(entry, param, names, { messages, droppedItems, closeDraft, draft });
  });
  closeDraft();
  if (systemTexts.length > 0) messages.unshift({ role: 'system', content: systemTexts.join('\n\n') });
  return { messages, droppedItems };
}

function isSystemRole(item: MessageItem): boolean {
  return item.role === 'system' || item.role === 'developer';
}

interface TranslationState {
  messages: ChatMessage[];
  droppedItems: string[];
  closeDraft: () => void;
  draft: AssistantDraft | null;
}

/** Translates one item; returns the assistant draft still open after it. */
function translateItem(entry: InputItem, param: string, names: ResponsesToolNames, state: TranslationState): AssistantDraft | null {
  let draft = state.draft;
  switch (entry.kind) {
    case 'dropped':
      state.droppedItems.push(entry.type);
      return draft;
    case 'reasoning': {
      const text = reasoningText(entry.item);
      if (text === '') {
        state.droppedItems.push('reasoning');
        return draft;
      }
      // reasoning opens a turn: whatever came before it was an earlier turn
      state.closeDraft();
      return { toolCalls: [], reasoning: text };
    }
    case 'message': {
      const { role, content } = entry.item;
      if (role === 'assistant') {
        if (draft !== null && (draft.content !== undefined || draft.toolCalls.length > 0)) {
          state.closeDraft();
          draft = null;
        }
        return { ...(draft ?? { toolCalls: [] }), content: plainText(content, `${param}.content`, '') };
      }
      state.closeDraft();
      state.messages.push({ role: role === 'user' ? 'user' : 'system', content: chatContent(content, `${param}.content`) });
      return null;
    }
    case 'function_call':
    case 'custom_tool_call': {
      const item = entry.item;
      const args = entry.kind === 'function_call' ? entry.item.arguments : JSON.stringify({ input: entry.item.input });
      const open = draft ?? { toolCalls: [] };
      open.toolCalls.push({ id: item.call_id, type: 'function', function: { name: names.chatName(item.name, item.namespace), arguments: args } });
      return open;
    }
    case 'tool_output':
      state.closeDraft();
      state.messages.push({ role: 'tool', tool_call_id: entry.item.call_id, content: chatContent(entry.item.output, `${param}.output`) });
      return null;
  }
}

function assistantMessage(draft: AssistantDraft): ChatMessage {
  const message: ChatMessage = { role: 'assistant', content: draft.content ?? '' };
  // vLLM reads `reasoning` since PR #27752 and `reasoning_content` before it: both carry the same text
  if (draft.reasoning !== undefined) writeReasoning(message, draft.reasoning);
  if (draft.toolCalls.length > 0) message.tool_calls = draft.toolCalls;
  return message;
}
