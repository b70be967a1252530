import type { CallBodies } from '../../store/index.js';
import type { Conversation, ConversationMessage } from '../export-sample.js';
import { readConversationMessage } from './read-conversation-message.js';
import { isRecord } from '../../core/json/is-record.js';

/**
 * The conversation of one recorded chat call, in OpenAI chat form: the messages the backend rendered, then the
 * call's reply (choice 0) as the final assistant message, with the tools and `chat_template_kwargs` it was rendered
 * with (see readConversationMessage for how each message reads).
 *
 * Where the request comes from: the backend request when it is a chat body, which every chat front door sends (the
 * Anthropic and Responses front doors translate into it, thinking switches included). A token-faithful call sends
 * `/v1/completions` a token-id prompt instead (docs/token-faithful.md); its conversation is the chat request that
 * prompt was rendered from (`chatRequestBody`, recorded since schema 4, whatever the front door). For calls recorded
 * before, the harness's own request is read when it means the same as chat (no `system`, no `thinking`, no
 * tool_use/tool_result blocks, function tools only; the harness's Anthropic or Responses body is not translated
 * again here), and otherwise the call has no conversation.
 *
 * The reply is the stored response body's message (streams are stored with an assembled body too), else the one
 * assembled from the stored chat stream. Null when the call is not a chat call, holds text the chat form cannot
 * carry (images, unknown roles), or has no reply (a call that failed before it answered).
 *
 * @example
 * const conversation = readConversation(store.getCallBodies(callId)!);
 * conversation?.messages.at(-1); // { role: 'assistant', content: 'The answer is 42.', reasoning: '...' }
 */
export function readConversation(bodies: CallBodies): Conversation | null {
  const request = chatRequest(bodies);
  if (request === null) return null;
  const reply = readConversationMessage(replyMessage(bodies));
  if (reply === null || reply.role !== 'assistant') return null;
  const messages: ConversationMessage[] = [];
  for (const raw of request.messages as unknown[]) {
    const message = readConversationMessage(raw);
    if (message === null) return null;
    messages.push(message);
  }
  const last = messages.at(-1);
  // `continue_final_message`: vLLM continued the last (assistant) message, and its reply is only the continuation
  if (request.continue_final_message === true && last?.role === 'assistant') messages[messages.length - 1] = continued(last, reply);
  else messages.push(reply);
  return {
    messages,
    tools: Array.isArray(request.tools) ? request.tools : [],
    templateOptions: isRecord(request.chat_template_kwargs) ? { ...request.chat_template_kwargs } : {},
  };
}

function chatRequest(bodies: CallBodies): Record<string, unknown> | null {
  const backend = bodies.backendRequestBody;
  if (isRecord(backend) && Array.isArray(backend.messages)) return backend;
  // token-faithful: the backend got prompt ids rendered from this chat request (recorded since schema 4)
  const rendered = bodies.chatRequestBody;
  if (isRecord(rendered) && Array.isArray(rendered.messages)) return rendered;
  // older records: the harness's request, when it reads as chat
  const harness = bodies.requestBody;
  if (isRecord(backend) && 'prompt' in backend && isRecord(harness) && readsAsChat(harness)) return harness;
  return null;
}

/**
 * True for a request whose chat reading is its meaning. An Anthropic body fails on `system` or `thinking` (chat has
 * no such top-level fields), on tool_use/tool_result/thinking/image blocks (readConversationMessage refuses them)
 * and on custom tools (no `type: "function"`); what remains of it (user and assistant turns of plain text) reads the
 * same either way. A Responses or Completions body has no `messages`.
 */
function readsAsChat(body: Record<string, unknown>): boolean {
  if (!Array.isArray(body.messages) || 'system' in body || 'thinking' in body) return false;
  const tools = body.tools ?? [];
  return Array.isArray(tools) && tools.every((tool) => isRecord(tool) && tool.type === 'function' && isRecord(tool.function));
}

function replyMessage(bodies: CallBodies): unknown {
  const body = bodies.responseBody;
  if (isRecord(body) && Array.isArray(body.choices)) {
    const choice = body.choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (isRecord(choice) && isRecord(choice.message)) return { ...choice.message, role: 'assistant' };
  }
  // the gateway stores an assembled body beside every stream; a call without one got no reply to train on
  return null;
}

function continued(prefill: ConversationMessage, reply: ConversationMessage): ConversationMessage {
  const message: ConversationMessage = { ...reply, content: prefill.content + reply.content };
  if (prefill.reasoning !== undefined || reply.reasoning !== undefined) message.reasoning = (prefill.reasoning ?? '') + (reply.reasoning ?? '');
  return message;
}
