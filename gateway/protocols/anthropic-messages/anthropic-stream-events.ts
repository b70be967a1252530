import { isRecord } from '../../../core/json/is-record.js';
import { encodeSseEvent } from '../../../core/sse/encode-sse-event.js';
import { anthropicId, thinkingSignature, toolUseId } from './anthropic-ids.js';
import { readReasoning } from '../../../model-format/backend-fields/read-reasoning.js';
import { anthropicStopReason, anthropicUsage, type AnthropicAnswerOptions } from './anthropic-message-body.js';

type OpenBlock = { kind: 'thinking'; index: number; text: string } | { kind: 'text'; index: number } | { kind: 'tool_use'; index: number };

/** One SSE event: Anthropic names every event, and `data.type` equals the name. */
function sse(type: string, data: Record<string, unknown>): string {
  return encodeSseEvent({ event: type, data: JSON.stringify({ type, ...data }) });
}

/**
 * Turns vLLM chat chunks into Anthropic's stream, chunk by chunk as they arrive: `message_start` and a `ping`,
 * then per block `content_block_start` / `_delta` / `_stop` (thinking_delta + a signature_delta before the
 * thinking block stops, text_delta, input_json_delta), then `message_delta` (stop_reason, usage) and
 * `message_stop`. Block indices are contiguous; a block is closed before the next opens. The event names and
 * fields are those @anthropic-ai/sdk's MessageStream accumulates (lib/MessageStream.ts `#accumulateMessage`).
 *
 * @example
 * const events = new AnthropicStreamEvents({ model: 'claude-x', stopSequences: [] });
 * reply.raw.write(events.chunk(chunk)); ...; reply.raw.write(events.end(0));
 */
export class AnthropicStreamEvents {
  readonly #options: AnthropicAnswerOptions;
  #started = false;
  #messageId = '';
  #promptTokens = 0;
  #nextIndex = 0;
  #open: OpenBlock | null = null;
  /** whitespace-only text not shown yet: it becomes a block only once real text follows (see toAnthropicMessage) */
  #pendingText = '';
  /** backend tool-call index -> block index */
  #toolBlocks = new Map<number, number>();
  #finishReason: unknown = null;
  #stopReason: unknown = null;
  #usage: unknown = null;

  constructor(options: AnthropicAnswerOptions) {
    this.#options = options;
  }

  /** The Anthropic events for one vLLM chunk ('' when it adds nothing the harness sees). */
  chunk(chunk: Record<string, unknown>): string {
    const events: string[] = [];
    if (!this.#started) this.#start(chunk, events);
    if (isRecord(chunk.usage)) this.#usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (!isRecord(choice)) return events.join('');
    if (isRecord(choice.delta)) this.#delta(choice.delta, events);
    if (typeof choice.finish_reason === 'string') {
      this.#finishReason = choice.finish_reason;
      this.#stopReason = choice.stop_reason;
      this.#close(events);
    }
    return events.join('');
  }

  /** `message_delta` and `message_stop` once the backend finished; `fallbackOutputTokens` when it sent no usage. */
  end(fallbackOutputTokens: number): string {
    const events: string[] = [];
    if (!this.#started) this.#start({}, events);
    this.#close(events);
    const stop = anthropicStopReason(
      { finishReason: this.#finishReason, stopReason: this.#stopReason, sawToolUse: this.#toolBlocks.size > 0 },
      this.#options.stopSequences,
    );
    const usage = anthropicUsage(this.#usage, { promptTokens: this.#promptTokens, completionTokens: fallbackOutputTokens });
    events.push(sse('message_delta', { delta: stop, usage }));
    events.push(sse('message_stop', {}));
    return events.join('');
  }

  #start(chunk: Record<string, unknown>, events: string[]): void {
    this.#started = true;
    this.#messageId = anthropicId('msg_', typeof chunk.id === 'string' ? chunk.id : 'unknown');
    // vLLM sends prompt_token_ids in the first chunk (tokentap always asks): the exact input count up front
    this.#promptTokens = Array.isArray(chunk.prompt_token_ids) ? chunk.prompt_token_ids.length : 0;
    const usage = { input_tokens: this.#promptTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = {
      id: this.#messageId,
      type: 'message',
      role: 'assistant',
      model: this.#options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    events.push(sse('message_start', { message }));
    events.push(sse('ping', {}));
  }

  #delta(delta: Record<string, unknown>, events: string[]): void {
    const reasoning = readReasoning(delta);
    if (reasoning !== null && reasoning !== '') this.#thinking(reasoning, events);
    if (typeof delta.content === 'string' && delta.content !== '') this.#text(delta.content, events);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.#toolCall(call, events);
  }

  #thinking(text: string, events: string[]): void {
    let block = this.#open;
    if (block?.kind !== 'thinking') {
      block = { kind: 'thinking', index: this.#nextIndex, text: '' };
      this.#openBlock(block, { type: 'thinking', thinking: '', signature: '' }, events);
    }
    block.text += text;
    events.push(sse('content_block_delta', { index: block.index, delta: { type: 'thinking_delta', thinking: text } }));
  }

  #text(text: string, events: string[]): void {
    if (this.#open?.kind !== 'text') {
      this.#pendingText += text;
      if (this.#pendingText.trim() === '') return;
      text = this.#pendingText;
      this.#openBlock({ kind: 'text', index: this.#nextIndex }, { type: 'text', text: '' }, events);
    }
    events.push(sse('content_block_delta', { index: this.#open!.index, delta: { type: 'text_delta', text } }));
  }

  #toolCall(call: Record<string, unknown>, events: string[]): void {
    const toolIndex = typeof call.index === 'number' ? call.index : 0;
    const fn = isRecord(call.function) ? call.function : {};
    let blockIndex = this.#toolBlocks.get(toolIndex);
    if (blockIndex === undefined) {
      blockIndex = this.#nextIndex;
      this.#toolBlocks.set(toolIndex, blockIndex);
      const id = toolUseId(typeof call.id === 'string' ? call.id : undefined, this.#messageId, toolIndex);
      this.#openBlock({ kind: 'tool_use', index: blockIndex }, { type: 'tool_use', id, name: String(fn.name ?? ''), input: {} }, events);
    }
    // vLLM's parsers stream one call at a time, so a call's arguments go to the block that is open
    if (typeof fn.arguments === 'string' && fn.arguments !== '') {
      events.push(sse('content_block_delta', { index: blockIndex, delta: { type: 'input_json_delta', partial_json: fn.arguments } }));
    }
  }

  #openBlock(block: OpenBlock, contentBlock: Record<string, unknown>, events: string[]): void {
    this.#close(events);
    this.#pendingText = '';
    this.#open = block;
    this.#nextIndex = block.index + 1;
    events.push(sse('content_block_start', { index: block.index, content_block: contentBlock }));
  }

  #close(events: string[]): void {
    const block = this.#open;
    if (block === null) return;
    if (block.kind === 'thinking') {
      events.push(sse('content_block_delta', { index: block.index, delta: { type: 'signature_delta', signature: thinkingSignature(block.text) } }));
    }
    events.push(sse('content_block_stop', { index: block.index }));
    this.#open = null;
  }
}
