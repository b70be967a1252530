import { isRecord } from '../../core/json/is-record.js';
import type { ChatTokenRecord } from './chat-token-record.js';
import { TokenTally } from './token-tally.js';
import { readUsage, readWeightVersion } from './vllm-chat-response.js';
import { withMatchedStop } from './sglang/matched-stop.js';
import { readCompletionChoiceTokens } from './vllm-completion-response.js';
import type { StreamAssembler } from './stream-assembler.js';

/**
 * Gathers a /v1/completions call (choice 0), streamed or whole: per-choice `prompt_token_ids` and `token_ids`,
 * legacy `logprobs.token_logprobs`, finish and stop reason (SGLang's `matched_stop` where it sends no `stop_reason`),
 * usage, SGLang's `metadata.weight_version`, and the assembled `text`, so a streamed call is stored like a
 * non-streamed one. Reads payloads before anything is stripped from them.
 *
 * @example
 * const assembler = new CompletionStreamAssembler();
 * assembler.add(chunk); ...; const record = assembler.tokenRecord();
 */
export class CompletionStreamAssembler implements StreamAssembler {
  readonly #tally = new TokenTally();
  #head: Record<string, unknown> = {};
  #text = '';
  #payloads = 0;

  get finished(): boolean {
    return this.#tally.finished;
  }

  add(payload: Record<string, unknown>): void {
    this.#payloads++;
    if (this.#payloads === 1) {
      for (const key of ['id', 'object', 'created', 'model'] as const) this.#head[key] = payload[key];
    }
    this.#tally.addUsage(readUsage(payload));
    this.#tally.addWeightVersion(readWeightVersion(payload));
    const choices = Array.isArray(payload.choices) ? payload.choices : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (!isRecord(choice)) return;
    const tokens = withMatchedStop(readCompletionChoiceTokens(choice), choice);
    // completions put the prompt ids inside the choice (first chunk only when streaming)
    this.#tally.addPromptIds(tokens.promptTokenIds);
    this.#tally.addChoice(tokens);
    if (typeof choice.text === 'string') this.#text += choice.text;
  }

  /** A whole body reads like one payload whose choice carries every id at once. */
  addBody(body: Record<string, unknown>): void {
    this.add(body);
  }

  tokenRecord(): ChatTokenRecord {
    return this.#tally.record();
  }

  /** The stream as one text_completion body (what a non-streaming call would have returned). */
  responseBody(): Record<string, unknown> {
    return {
      ...this.#head,
      object: 'text_completion',
      assembled_from_stream: true,
      choices: [{ index: 0, text: this.#text, finish_reason: this.#tally.finishReason, stop_reason: this.#tally.stopReason }],
      usage: this.#tally.usageBody(),
    };
  }
}
