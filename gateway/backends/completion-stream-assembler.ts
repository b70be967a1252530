import { isRecord } from '../json/is-record.js';
import { checkTokenRecord, type ChatTokenRecord } from './chat-token-record.js';
import { readUsage } from './vllm-chat-response.js';
import { readCompletionChoiceTokens } from './vllm-completion-response.js';
import type { StreamAssembler } from './stream-assembler.js';

/**
 * Gathers a /v1/completions call (choice 0), streamed or whole: per-choice `prompt_token_ids` and `token_ids`,
 * legacy `logprobs.token_logprobs`, finish and stop reason, usage, and the assembled `text`, so a streamed call
 * is stored like a non-streamed one. Reads payloads before anything is stripped from them.
 *
 * @example
 * const assembler = new CompletionStreamAssembler();
 * assembler.add(chunk); ...; const record = assembler.tokenRecord();
 */
export class CompletionStreamAssembler implements StreamAssembler {
  #promptTokenIds: number[] | null = null;
  #completionTokenIds: number[] = [];
  #logprobs: number[] = [];
  #sawTokenIds = false;
  #sawLogprobs = false;
  #finishReason: string | null = null;
  #stopReason: string | number | null = null;
  #usage: { promptTokens?: number; completionTokens?: number } | null = null;
  #head: Record<string, unknown> = {};
  #text = '';
  #payloads = 0;

  get finished(): boolean {
    return this.#finishReason !== null;
  }

  add(payload: Record<string, unknown>): void {
    this.#payloads++;
    if (this.#payloads === 1) {
      for (const key of ['id', 'object', 'created', 'model'] as const) this.#head[key] = payload[key];
    }
    const usage = readUsage(payload);
    if (usage !== null) this.#usage = usage;
    const choices = Array.isArray(payload.choices) ? payload.choices : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (isRecord(choice)) this.#addChoice(choice);
  }

  #addChoice(choice: Record<string, unknown>): void {
    const tokens = readCompletionChoiceTokens(choice);
    // vLLM sends the prompt ids on the first chunk only (null afterwards)
    if (tokens.promptTokenIds !== null && this.#promptTokenIds === null) this.#promptTokenIds = tokens.promptTokenIds;
    if (tokens.tokenIds !== null) {
      this.#sawTokenIds = true;
      for (const id of tokens.tokenIds) this.#completionTokenIds.push(id);
    }
    if (tokens.logprobs !== null) {
      this.#sawLogprobs = true;
      for (const logprob of tokens.logprobs) this.#logprobs.push(logprob);
    }
    if (tokens.finishReason !== null) {
      this.#finishReason = tokens.finishReason;
      this.#stopReason = tokens.stopReason;
    }
    if (typeof choice.text === 'string') this.#text += choice.text;
  }

  /** A whole body reads like one payload whose choice carries every id at once. */
  addBody(body: Record<string, unknown>): void {
    this.add(body);
  }

  tokenRecord(): ChatTokenRecord {
    const base = {
      promptTokenIds: this.#promptTokenIds,
      completionTokenIds: this.#sawTokenIds ? this.#completionTokenIds : null,
      completionLogprobs: this.#sawLogprobs ? this.#logprobs : null,
      finishReason: this.#finishReason,
      stopReason: this.#stopReason,
      usage: this.#usage,
    };
    const tokenSource = this.#sawTokenIds || this.#promptTokenIds !== null ? 'backend' : 'none';
    return { ...base, tokenSource, flags: tokenSource === 'none' ? [] : checkTokenRecord(base) };
  }

  /** The stream as one text_completion body (what a non-streaming call would have returned). */
  responseBody(): Record<string, unknown> {
    return {
      ...this.#head,
      object: 'text_completion',
      assembled_from_stream: true,
      choices: [{ index: 0, text: this.#text, finish_reason: this.#finishReason, stop_reason: this.#stopReason }],
      usage: this.#usage === null ? null : { prompt_tokens: this.#usage.promptTokens, completion_tokens: this.#usage.completionTokens },
    };
  }
}
