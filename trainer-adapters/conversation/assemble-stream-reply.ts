import { SseDecoder } from '../../gateway/sse/sse-decoder.js';

interface AssembledToolCall {
  id?: string;
  type: string;
  function: { name: string; arguments: string };
}

/**
 * The reply message (choice 0) of a recorded chat completion stream, assembled from its deltas: content, reasoning
 * (under the first of `reasoning` / `reasoning_content` the stream used, as vLLM's transition releases send the same
 * text under both) and tool-call pieces joined by their `index`. Null when no chunk carried a chat delta: the text
 * is no chat stream (e.g. the `/v1/completions` stream of a token-faithful call, whose chat-shaped reply is the
 * stored response body), or it is empty. The gateway stores an assembled body beside every stream; this reads
 * streams whose body is missing.
 *
 * @example
 * assembleStreamReply('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n');
 * // { role: 'assistant', content: 'Hi' }
 */
export function assembleStreamReply(responseStream: string): Record<string, unknown> | null {
  const decoder = new SseDecoder();
  const reply = new ReplyPieces();
  for (const event of [...decoder.push(responseStream), ...decoder.flush()]) {
    if (event.data === '[DONE]') continue;
    const choice = firstChoice(parseJson(event.data));
    if (choice !== null && isRecord(choice.delta)) reply.add(choice.delta);
  }
  return reply.message();
}

class ReplyPieces {
  #sawDelta = false;
  #content: string | null = null;
  #reasoningKey: 'reasoning' | 'reasoning_content' | null = null;
  #reasoning = '';
  #toolCalls: AssembledToolCall[] = [];

  add(delta: Record<string, unknown>): void {
    this.#sawDelta = true;
    if (typeof delta.content === 'string') this.#content = (this.#content ?? '') + delta.content;
    for (const key of ['reasoning', 'reasoning_content'] as const) {
      const value = delta[key];
      if (typeof value !== 'string') continue;
      this.#reasoningKey ??= key;
      if (this.#reasoningKey === key) this.#reasoning += value;
    }
    if (Array.isArray(delta.tool_calls)) for (const piece of delta.tool_calls) if (isRecord(piece)) this.#addToolCall(piece);
  }

  #addToolCall(piece: Record<string, unknown>): void {
    const index = typeof piece.index === 'number' ? piece.index : this.#toolCalls.length;
    const target = (this.#toolCalls[index] ??= { type: 'function', function: { name: '', arguments: '' } });
    if (typeof piece.id === 'string') target.id = piece.id;
    const fn = isRecord(piece.function) ? piece.function : {};
    if (typeof fn.name === 'string') target.function.name += fn.name;
    if (typeof fn.arguments === 'string') target.function.arguments += fn.arguments;
  }

  message(): Record<string, unknown> | null {
    if (!this.#sawDelta) return null;
    const message: Record<string, unknown> = { role: 'assistant', content: this.#content };
    if (this.#reasoningKey !== null) message[this.#reasoningKey] = this.#reasoning;
    const toolCalls = this.#toolCalls.filter((call) => call !== undefined);
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return message;
  }
}

function firstChoice(chunk: unknown): Record<string, unknown> | null {
  if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return null;
  const choice = chunk.choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
  return isRecord(choice) ? choice : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
