import { isRecord } from '../json/is-record.js';
import { encodeSseEvent } from '../sse/encode-sse-event.js';
import { responseObject, type ResponseEnvelope, type ResponseState } from './responses-envelope.js';
import {
  callIdOf, createItemIds, customToolInput, messageItem, reasoningItem, toolCallItem, toResponsesUsage, type OutputItem,
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
 * Turns a vLLM chat stream into Responses stream events, chunk by chunk as they arrive. Every event carries
 * `type` and `sequence_number` and is sent with `event: <type>`. The order follows what openai-node's
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
  readonly #output: OutputItem[] = [];
  readonly #tools = new Map<number, ToolState>();
  #sequence = 0;
  #started = false;
  #reasoning: OpenText | null = null;
  #reasoningKey: string | null = null;
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
    return this.#output;
  }

  get status(): ResponseState['status'] {
    return this.#status;
  }

  /** SSE text for one backend chat chunk ('' when it adds nothing the harness sees). */
  chunk(chunk: Record<string, unknown>): string {
    const events: string[] = [];
    this.#start(events);
    if (isRecord(chunk.usage)) this.#usage = toResponsesUsage(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (!isRecord(choice)) return events.join('');
    if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    for (const key of ['reasoning', 'reasoning_content']) {
      const value = delta[key];
      // vLLM may send the same text under both names (transition releases): take the first name seen
      if (typeof value !== 'string' || value === '' || (this.#reasoningKey ?? key) !== key) continue;
      this.#reasoningKey = key;
      this.#reasoningDelta(events, value);
    }
    if (typeof delta.content === 'string' && delta.content !== '') this.#contentDelta(events, delta.content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.#toolDelta(events, call);
    return events.join('');
  }

  /** SSE text that closes every open item and ends the response. */
  end(): string {
    const events: string[] = [];
    this.#start(events);
    this.#closeReasoning(events);
    if (this.#heldContent !== '' && this.#tools.size === 0 && this.#message === null) this.#contentDelta(events, '', true);
    this.#closeMessage(events);
    for (const index of [...this.#tools.keys()].sort((a, b) => a - b)) this.#closeTool(events, this.#tools.get(index) as ToolState);
    const incomplete = this.#finishReason === 'length';
    this.#status = incomplete ? 'incomplete' : 'completed';
    const state: ResponseState = { status: this.#status, output: this.#output, usage: this.#usage };
    if (incomplete) state.incompleteReason = 'max_output_tokens';
    this.#emit(events, incomplete ? 'response.incomplete' : 'response.completed', { response: responseObject(this.#envelope, state) });
    return events.join('');
  }

  /** SSE text reporting a failure: an `error` event, then `response.failed` (which Codex maps by `error.code`). */
  fail(error: { code: string | number | null; message: string; param: string | null }): string {
    const events: string[] = [];
    this.#start(events);
    const code = error.code === null ? 'server_error' : String(error.code);
    this.#status = 'failed';
    this.#emit(events, 'error', { code, message: error.message, param: error.param });
    const state: ResponseState = { status: 'failed', output: this.#output, usage: this.#usage, error: { code, message: error.message } };
    this.#emit(events, 'response.failed', { response: responseObject(this.#envelope, state) });
    return events.join('');
  }

  #emit(events: string[], type: string, fields: Record<string, unknown>): void {
    events.push(encodeSseEvent({ event: type, data: JSON.stringify({ type, sequence_number: this.#sequence++, ...fields }) }));
  }

  #start(events: string[]): void {
    if (this.#started) return;
    this.#started = true;
    const response = responseObject(this.#envelope, { status: 'in_progress', output: [], usage: null });
    this.#emit(events, 'response.created', { response });
    this.#emit(events, 'response.in_progress', { response });
  }

  /** Adds an item in progress; its content parts are announced by content_part.added (the client appends them). */
  #addItem(events: string[], item: OutputItem): number {
    const index = this.#output.length;
    this.#output.push(item);
    this.#emit(events, 'response.output_item.added', { output_index: index, item });
    return index;
  }

  #doneItem(events: string[], index: number, item: OutputItem): void {
    this.#output[index] = item;
    this.#emit(events, 'response.output_item.done', { output_index: index, item });
  }

  #reasoningDelta(events: string[], text: string): void {
    this.#closeMessage(events);
    if (this.#reasoning === null) {
      const id = this.#nextId('rs');
      const index = this.#addItem(events, { ...reasoningItem(id, '', 'in_progress'), content: [] });
      this.#emit(events, 'response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
      this.#reasoning = { id, index, text: '' };
    }
    const open = this.#reasoning;
    open.text += text;
    this.#emit(events, 'response.reasoning_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: text });
  }

  #closeReasoning(events: string[]): void {
    const open = this.#reasoning;
    if (open === null) return;
    this.#reasoning = null;
    const base = { item_id: open.id, output_index: open.index, content_index: 0 };
    this.#emit(events, 'response.reasoning_text.done', { ...base, text: open.text });
    this.#emit(events, 'response.content_part.done', { ...base, part: { type: 'reasoning_text', text: open.text } });
    this.#doneItem(events, open.index, reasoningItem(open.id, open.text, 'completed'));
  }

  /** `flush` sends held whitespace as the message (a reply that is only whitespace is still the reply). */
  #contentDelta(events: string[], text: string, flush = false): void {
    this.#closeReasoning(events);
    if (this.#message === null) {
      this.#heldContent += text;
      if (this.#heldContent.trim() === '' && !flush) return;
      text = this.#heldContent;
      this.#heldContent = '';
      const id = this.#nextId('msg');
      const index = this.#addItem(events, { ...messageItem(id, '', 'in_progress'), content: [] });
      this.#emit(events, 'response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
      this.#message = { id, index, text: '' };
    }
    const open = this.#message;
    open.text += text;
    this.#emit(events, 'response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] });
  }

  #closeMessage(events: string[]): void {
    const open = this.#message;
    if (open === null) return;
    this.#message = null;
    const base = { item_id: open.id, output_index: open.index, content_index: 0 };
    this.#emit(events, 'response.output_text.done', { ...base, text: open.text, logprobs: [] });
    this.#emit(events, 'response.content_part.done', { ...base, part: { type: 'output_text', text: open.text, annotations: [], logprobs: [] } });
    this.#doneItem(events, open.index, messageItem(open.id, open.text, 'completed'));
  }

  #toolDelta(events: string[], call: Record<string, unknown>): void {
    const key = typeof call.index === 'number' ? call.index : this.#tools.size;
    let state = this.#tools.get(key);
    if (state === undefined) {
      this.#closeReasoning(events);
      this.#closeMessage(events);
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
      if (state.chatName !== '') this.#openTool(events, state);
    } else if (state.opened.kind === 'function' && argumentsDelta !== '') {
      this.#emit(events, 'response.function_call_arguments.delta', { item_id: state.opened.id, output_index: state.opened.index, delta: argumentsDelta });
    }
  }

  #openTool(events: string[], state: ToolState): void {
    const kind = this.#names.target(state.chatName).kind;
    const id = this.#nextId(kind === 'custom' ? 'ctc' : 'fc');
    state.callId = callIdOf(state.callId);
    const item = toolCallItem(id, { callId: state.callId, chatName: state.chatName, arguments: '' }, this.#names, 'in_progress');
    const index = this.#addItem(events, kind === 'custom' ? { ...item, input: '' } : item);
    state.opened = { id, index, kind };
    // custom tool input is a JSON string value while it streams: it is sent whole when the call is complete
    if (kind === 'function' && state.arguments !== '') {
      this.#emit(events, 'response.function_call_arguments.delta', { item_id: id, output_index: index, delta: state.arguments });
    }
  }

  #closeTool(events: string[], state: ToolState): void {
    if (state.opened === null) this.#openTool(events, state);
    const opened = state.opened as NonNullable<ToolState['opened']>;
    const base = { item_id: opened.id, output_index: opened.index };
    const item = toolCallItem(opened.id, { callId: state.callId, chatName: state.chatName, arguments: state.arguments }, this.#names, 'completed');
    if (opened.kind === 'custom') {
      const input = customToolInput(state.arguments);
      this.#emit(events, 'response.custom_tool_call_input.delta', { ...base, delta: input });
      this.#emit(events, 'response.custom_tool_call_input.done', { ...base, input });
    } else {
      this.#emit(events, 'response.function_call_arguments.done', { ...base, name: item.name, arguments: state.arguments });
    }
    this.#doneItem(events, opened.index, item);
  }
}
