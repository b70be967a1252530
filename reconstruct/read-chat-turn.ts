import { canonicalJson } from '../core/json/canonical-json.js';
import { isRecord } from '../core/json/is-record.js';
import type { CallBodies } from '../store/index.js';

/**
 * A chat call seen the way a human reads a conversation, so that two calls can be compared by meaning rather
 * than by rendering: every message (and the call's own reply) reduced to a canonical string in which
 * - reasoning is dropped (`reasoning`, `reasoning_content`, and `<think>…</think>` left inside content), because
 *   templates drop or keep it by position (Qwen3 drops it before the last user message);
 * - content is the joined text with surrounding whitespace trimmed (vLLM hands back the "\n\n" before a tool
 *   call as content; whether the harness returns it is formatting, not history);
 * - tool-call arguments are parsed JSON with sorted keys, and tool-call ids are ignored (templates print neither
 *   the spacing the model chose nor the ids).
 */
export interface ChatTurn {
  messages: string[];
  /** the reply the backend gave (choice 0), or null when the response holds none */
  reply: string | null;
  /** the tool definitions, canonical */
  tools: string;
  /** `chat_template_kwargs`, canonical (e.g. thinking switched off) */
  templateOptions: string;
}

/**
 * Reads the request the backend rendered (`backendRequestBody`; for a token-faithful call the chat request its prompt
 * was rendered from, `chatRequestBody`; else the harness's `requestBody`) and the reply.
 * Null when the call was not a chat call (e.g. `/v1/completions` sends a raw prompt).
 *
 * @example
 * const turn = readChatTurn(store.getCallBodies(callId)); // { messages: ['{"content":"hi","role":"user"}'], ... }
 */
export function readChatTurn(bodies: CallBodies | null): ChatTurn | null {
  if (bodies === null) return null;
  // in this order, reading each only when the one before has no messages (the store rebuilds bodies when first read)
  const request = chatRequest(bodies.backendRequestBody) ?? chatRequest(bodies.chatRequestBody) ?? chatRequest(bodies.requestBody);
  if (request === null) return null;
  const messages = request.messages.map(canonicalMessage);
  const choice = isRecord(bodies.responseBody) && Array.isArray(bodies.responseBody.choices) ? bodies.responseBody.choices[0] : undefined;
  const reply = isRecord(choice) && isRecord(choice.message) ? canonicalMessage({ role: 'assistant', ...choice.message }) : null;
  return {
    messages,
    reply,
    tools: canonicalJson(Array.isArray(request.tools) ? request.tools : []),
    templateOptions: canonicalJson(request.chat_template_kwargs ?? {}),
  };
}

function chatRequest(body: unknown): (Record<string, unknown> & { messages: unknown[] }) | null {
  return isRecord(body) && Array.isArray(body.messages) ? (body as Record<string, unknown> & { messages: unknown[] }) : null;
}

function canonicalMessage(message: unknown): string {
  if (!isRecord(message)) return canonicalJson(message);
  const canonical: Record<string, unknown> = { role: message.role, content: contentText(message.content) };
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) canonical.tool_calls = message.tool_calls.map(canonicalToolCall);
  if (typeof message.name === 'string') canonical.name = message.name;
  return canonicalJson(canonical);
}

function contentText(content: unknown): string {
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    text = content.map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('\n');
  }
  return text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .replace(/^[\s\S]*<\/think>/, '')
    .trim();
}

function canonicalToolCall(toolCall: unknown): unknown {
  const call = isRecord(toolCall) && isRecord(toolCall.function) ? toolCall.function : toolCall;
  if (!isRecord(call)) return call;
  return { name: call.name, arguments: parseArguments(call.arguments) };
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  if (value.trim() === '') return {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
