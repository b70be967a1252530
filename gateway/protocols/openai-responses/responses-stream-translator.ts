import { isRecord } from '../../../core/json/is-record.js';
import { createReasoningDeltaReader } from '../../../model-format/backend-fields/create-reasoning-delta-reader.js';
import { responseObject, type ResponseEnvelope, type ResponseState } from './responses-envelope.js';
import { ResponsesEventWriter } from './responses-event-writer.js';
import {
  callIdOf,
  createItemIds,
  customToolInput,
  messageItem,
  reasoningItem,
  toolCallItem,
  toResponsesUsage,
  type OutputItem,
} from './responses-output-items.js';
import type { ResponsesToolNames } from './responses-tools.js';

interface OpenText {
  id: string;
  index: number;
  text: string;
}

interface ToolState {
  callId: string;
  chatName: string;
  arguments: string;
  opened: { id: string; index: number; kind: 'function' | 'custom' } | null;
}

/**
 * Turns a vLLM chat stream into Responses stream events, chunk by chunk as they arrive (framing and sequence
 * numbers: responses-event-writer.ts). The order follows what openai-node's
 * ResponseStream accumulates (lib/responses/ResponseStream.ts) and what Codex reads
 * (codex-rs/codex-api/src/sse/responses.rs: items from `response.output_item.done`, usage from
 * `response.completed`): created, in_progress, then per item added / part added / deltas / done, then
 * `response.completed` (or `response.incomplete` when the backend hit its token limit).
 *
 * @example
 * const translator = new ResponsesStreamTranslator(envelope, names);
 * raw.write(translator.chunk(chunk)); ...; raw.end(translator.end());
 */
export class ResponsesStreamTranslator {
  readonly #envelope: ResponseEnvelope;
  readonly #names: ResponsesToolNames;
  readonly #nextId: ReturnType<typeof createItemIds>;
  readonly #writer = new ResponsesEventWriter();
  readonly #tools = new Map<number, ToolState>();
  #started = false;
  #reasoning: OpenText | null = null;
  readonly #reasoningReader = createReasoningDeltaReader();
  #message: OpenText | null = null;
  /** whitespace-only text, held until real text follows (dropped if tool calls come instead) */
  #heldContent = '';
  #finishReason: string | null = null;
  #usage: Record<string, unknown> | null = null;
  #status: ResponseState['status'] = 'in_progress';

  constructor(envelope: ResponseEnvelope, names: ResponsesToolNames) {
    this.#envelope = envelope;
    this.#names = names;
    this.#nextId = createItemIds(envelope.id);
  }

  /** the output items so far (final once `end()` ran) */
  get output(): OutputItem[] {
    return this.#writer.output;
  }

  get status(): ResponseState['status'] {
    return this.#status;
  }

  /** SSE text for one backend chat chunk ('' when it adds nothing the harness sees). */
  chunk(chunk: Record<string, unknown>): string {
    this.#start();
    if (isRecord(chunk.usage)) this.#usage = toResponsesUsage(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (!isRecord(choice)) return this.#writer.take();
    if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    // vLLM may send the same text under both names (transition releases): the reader keeps to the first name seen
    const reasoning = this.#reasoningReader.read(delta);
    if (reasoning !== null && reasoning !== '') this.#reasoningDelta(reasoning);
    if (typeof delta.content === 'string' && delta.content !== '') this.#contentDelta(delta.content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.#toolDelta(call);
    return this.#writer.take();
  }

  /** SSE text that closes every open item and ends the response. */
  end(): string {
    this.#start();
    this.#closeReasoning();
    if (this.#heldContent !== '' && this.#tools.size === 0 && this.#message === null) this.#contentDelta('', true);
    this.#closeMessage();
    for (const index of [...this.#tools.keys()].sort((a, b) => a - b)) this.#closeTool(this.#tools.get(index) as ToolState);
    const incomplete = this.#finishReason === 'length';
    this.#status = incomplete ? 'incomplete' : 'completed';
    const state: ResponseState = { status: this.#status, output: this.#writer.output, usage: this.#usage };
    if (incomplete) state.incompleteReason = 'max_output_tokens';
    this.#writer.emit(incomplete ? 'response.incomplete' : 'response.completed', { response: responseObject(this.#envelope, state) });
    return this.#writer.take();
  }

  /** SSE text reporting a failure: an `error` event, then `response.failed` (which Codex maps by `error.code`). */
  fail(error: { code: string | number | null; message: string; param: string | null }): string {
    this.#start();
    const code = error.code === null ? 'server_error' : String(error.code);
    this.#status = 'failed';
    this.#writer.emit('error', { code, message: error.message, param: error.param });
    const state: ResponseState = { status: 'failed', output: this.#writer.output, usage: this.#usage, error: { code, message: error.message } };
    this.#writer.emit('response.failed', { response: responseObject(this.#envelope, state) });
    return this.#writer.take();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const response = responseObject(this.#envelope, { status: 'in_progress', output: [], usage: null });
    this.#writer.emit('response.created', { response });
    this.#writer.emit('response.in_progress', { response });
  }

  #reasoningDelta(text: string): void {
    this.#closeMessage();
    if (this.#reasoning === null) {
      const id = this.#nextId('rs');
      const index = this.#writer.addItem({ ...reasoningItem(id, '', 'in_progress'), content: [] });
      this.#writer.emit('response.content_part.added', {
        item_id: id,
        output_index: index,
        content_index: 0,
        part: { type: 'reasoning_text', text: '' },
      });
      this.#reasoning = { id, index, text: '' };
    }
    const open = this.#reasoning;
    open.text += text;
    this.#writer.emit('response.reasoning_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: text });
  }

  #closeReasoning(): void {
    const open = this.#reasoning;
    if (open === null) return;
    this.#reasoning = null;
    const base = { item_id: open.id, output_index: open.index, content_index: 0 };
    this.#writer.emit('response.reasoning_text.done', { ...base, text: open.text });
    this.#writer.emit('response.content_part.done', { ...base, part: { type: 'reasoning_text', text: open.text } });
    this.#writer.doneItem(open.index, reasoningItem(open.id, open.text, 'completed'));
  }

  /** `flush` sends held whitespace as the message (a reply that is only whitespace is still the reply). */
  #contentDelta(text: string, flush = false): void {
    this.#closeReasoning();
    if (this.#message === null) {
      this.#heldContent += text;
      if (this.#heldContent.trim() === '' && !flush) return;
      text = this.#heldContent;
      this.#heldContent = '';
      const id = this.#nextId('msg');
      const index = this.#writer.addItem({ ...messageItem(id, '', 'in_progress'), content: [] });
      this.#writer.emit('response.content_part.added', {
        item_id: id,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
      this.#message = { id, index, text: '' };
    }
    const open = this.#message;
    open.text += text;
    this.#writer.emit('response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] });
  }

  #closeMessage(): void {
    const open = this.#message;
    if (open === null) return;
    this.#message = null;
    const base = { item_id: open.id, output_index: open.index, content_index: 0 };
    this.#writer.emit('response.output_text.done', { ...base, text: open.text, logprobs: [] });
    this.#writer.emit('response.content_part.done', { ...base, part: { type: 'output_text', text: open.text, annotations: [], logprobs: [] } });
    this.#writer.doneItem(open.index, messageItem(open.id, open.text, 'completed'));
  }

  #toolDelta(call: Record<string, unknown>): void {
    const key = typeof call.index === 'number' ? call.index : this.#tools.size;
    let state = this.#tools.get(key);
    if (state === undefined) {
      this.#closeReasoning();
      this.#closeMessage();
      this.#heldContent = '';
      state = { callId: '', chatName: '', arguments: '', opened: null };
      this.#tools.set(key, state);
    }
    if (typeof call.id === 'string' && state.callId === '') state.callId = call.id;
    const fn = isRecord(call.function) ? call.function : {};
    if (typeof fn.name === 'string') state.chatName += fn.name;
    const argumentsDelta = typeof fn.arguments === 'string' ? fn.arguments : '';
    state.arguments += argumentsDelta;
    if (state.opened === null) {
      if (state.chatName !== '') this.#openTool(state);
    } else if (state.opened.kind === 'function' && argumentsDelta !== '') {
      this.#writer.emit('response.function_call_arguments.delta', {
        item_id: state.opened.id,
        output_index: state.opened.index,
        delta: argumentsDelta,
      });
    }
  }

  #openTool(state: ToolState): void {
    const kind = this.#names.target(state.chatName).kind;
    const id = this.#nextId(kind === 'custom' ? 'ctc' : 'fc');
    state.callId = callIdOf(state.callId);
    const item = toolCallItem(id, { callId: state.callId, chatName: state.chatName, arguments: '' }, this.#names, 'in_progress');
    const index = this.#writer.addItem(kind === 'custom' ? { ...item, input: '' } : item);
    state.opened = { id, index, kind };
    // custom tool input is a JSON string value while it streams: it is sent whole when the call is complete
    if (kind === 'function' && state.arguments !== '') {
      this.#writer.emit('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: state.arguments });
    }
  }

  #closeTool(state: ToolState): void {
    if (state.opened === null) this.#openTool(state);
    const opened = state.opened as NonNullable<ToolState['opened']>;
    const base = { item_id: opened.id, output_index: opened.index };
    const item = toolCallItem(opened.id, { callId: state.callId, chatName: state.chatName, arguments: state.arguments }, this.#names, 'completed');
    if (opened.kind === 'custom') {
      const input = customToolInput(state.arguments);
      this.#writer.emit('response.custom_tool_call_input.delta', { ...base, delta: input });
      this.#writer.emit('response.custom_tool_call_input.done', { ...base, input });
    } else {
      this.#writer.emit('response.function_call_arguments.done', { ...base, name: item.name, arguments: state.arguments });
    }
    this.#writer.doneItem(opened.index, item);
  }
}
