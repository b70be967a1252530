import { isRecord } from '../../core/json/is-record.js';
import { createReasoningDeltaReader } from '../../model-format/backend-fields/create-reasoning-delta-reader.js';
import type { ChatTokenRecord } from './chat-token-record.js';
import { TokenTally } from './token-tally.js';
import { readChoiceTokens, readPromptTokenIds, readUsage, readWeightVersion } from './vllm-chat-response.js';
import { readTokenIds } from './read-token-ids.js';
import { withMatchedStop } from './sglang/matched-stop.js';
import type { StreamAssembler } from './stream-assembler.js';

interface AssembledToolCall {
  id?: string;
  type: string;
  function: { name: string; arguments: string };
}

/**
 * Gathers a streamed chat completion (choice 0) as the chunks arrive: token ids, logprobs, usage, and the
 * assembled message, so a streamed call is stored like a non-streamed one. Reads the backend's chunks before
 * anything is stripped from them. vLLM and SGLang alike: prompt ids top-level (vLLM) or in the choice (SGLang),
 * `stop_reason` (vLLM) or `matched_stop` (SGLang), SGLang's `metadata.weight_version`.
 *
 * @example
 * const assembler = new ChatStreamAssembler();
 * assembler.add(chunk); ...; const record = assembler.tokenRecord(); const body = assembler.responseBody();
 */
export class ChatStreamAssembler implements StreamAssembler {
  readonly #tally = new TokenTally();
  #head: Record<string, unknown> = {};
  #content = '';
  #reasoning = '';
  #sawContent = false;
  readonly #reasoningReader = createReasoningDeltaReader();
  #toolCalls: AssembledToolCall[] = [];
  #chunks = 0;

  get chunkCount(): number {
    return this.#chunks;
  }

  get finished(): boolean {
    return this.#tally.finished;
  }

  add(chunk: Record<string, unknown>): void {
    this.#chunks++;
    if (this.#chunks === 1) {
      for (const key of ['id', 'object', 'created', 'model'] as const) this.#head[key] = chunk[key];
    }
    this.#tally.addPromptIds(readPromptTokenIds(chunk));
    this.#tally.addUsage(readUsage(chunk));
    this.#tally.addWeightVersion(readWeightVersion(chunk));
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (!isRecord(choice)) return;
    this.#addChoice(choice);
  }

  #addChoice(choice: Record<string, unknown>): void {
    // SGLang puts a chat call's prompt ids in the choice (vLLM: top level, read above; the first that come win)
    this.#tally.addPromptIds(readTokenIds(choice.prompt_token_ids, 'prompt_token_ids'));
    this.#tally.addChoice(withMatchedStop(readChoiceTokens(choice), choice));
    if (isRecord(choice.delta)) this.#addDelta(choice.delta);
  }

  #addDelta(delta: Record<string, unknown>): void {
    if (typeof delta.content === 'string') {
      this.#content += delta.content;
      this.#sawContent = true;
    }
    // vLLM may send the same text under both names (transition releases): the reader counts it once
    const reasoning = this.#reasoningReader.read(delta);
    if (reasoning !== null) this.#reasoning += reasoning;
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.#addToolCall(call);
  }

  #addToolCall(call: Record<string, unknown>): void {
    const index = typeof call.index === 'number' ? call.index : this.#toolCalls.length;
    let target = this.#toolCalls[index];
    if (target === undefined) {
      target = { type: 'function', function: { name: '', arguments: '' } };
      this.#toolCalls[index] = target;
    }
    if (typeof call.id === 'string') target.id = call.id;
    if (typeof call.type === 'string') target.type = call.type;
    const fn = isRecord(call.function) ? call.function : {};
    if (typeof fn.name === 'string') target.function.name += fn.name;
    if (typeof fn.arguments === 'string') target.function.arguments += fn.arguments;
  }

  /** A whole body reads like one chunk whose choice carries every id at once (its message is not a delta). */
  addBody(body: Record<string, unknown>): void {
    const choices = Array.isArray(body.choices) ? body.choices : [];
    this.add({ ...body, choices: choices.map((choice) => (isRecord(choice) ? { ...choice, delta: undefined } : choice)) });
    const first = choices.find((choice) => isRecord(choice) && (choice.index ?? 0) === 0);
    if (isRecord(first) && isRecord(first.message)) this.#addDelta(first.message);
  }

  tokenRecord(): ChatTokenRecord {
    return this.#tally.record();
  }

  /** The stream as one chat.completion body (what a non-streaming call would have returned). */
  responseBody(): Record<string, unknown> {
    const message: Record<string, unknown> = { role: 'assistant', content: this.#sawContent ? this.#content : null };
    const reasoningField = this.#reasoningReader.field;
    if (reasoningField !== null) message[reasoningField] = this.#reasoning;
    if (this.#toolCalls.length > 0) message.tool_calls = this.#toolCalls.filter((call) => call !== undefined);
    return {
      ...this.#head,
      object: 'chat.completion',
      assembled_from_stream: true,
      choices: [{ index: 0, message, finish_reason: this.#tally.finishReason, stop_reason: this.#tally.stopReason }],
      usage: this.#tally.usageBody(),
    };
  }
}

/**
 * The token record of a non-streamed chat completion body (choice 0).
 * @example const record = readChatCompletionTokens(json)
 */
export function readChatCompletionTokens(body: Record<string, unknown>): ChatTokenRecord {
  const assembler = new ChatStreamAssembler();
  assembler.addBody(body);
  return assembler.tokenRecord();
}
