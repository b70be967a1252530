import { isInt32TokenId } from '../../core/token-ids/is-int32-token-id.js';
import { checkTokenRecord, type ChatTokenRecord } from './chat-token-record.js';

/** One choice's token fields as read from a body or a stream payload (null: the payload did not carry them). */
export interface ChoiceTokenFields {
  tokenIds: number[] | null;
  logprobs: number[] | null;
  finishReason: string | null;
  stopReason: string | number | null;
}

type Usage = { promptTokens?: number; completionTokens?: number; cachedTokens?: number };

/**
 * The token side of one backend call, summed as payloads arrive: prompt ids (the first that come), completion
 * ids and logprobs in order, how it finished, and usage. Shared by every endpoint's assembler, so "no ids" stays
 * distinct from "zero ids" and the checks against usage are the same everywhere.
 *
 * @example
 * const tally = new TokenTally();
 * tally.addPromptIds(chunk.prompt_token_ids); tally.addChoice(readChoiceTokens(choice)); tally.record();
 */
export class TokenTally {
  #promptTokenIds: number[] | null = null;
  readonly #completionTokenIds: number[] = [];
  readonly #logprobs: number[] = [];
  #sawTokenIds = false;
  #sawLogprobs = false;
  /** the backend sent a number that is no token id (negative, 2^31 or more, fractional) among the prompt ids kept */
  #invalidPromptIds = false;
  /** ... or among the completion ids */
  #invalidCompletionIds = false;
  #finishReason: string | null = null;
  #stopReason: string | number | null = null;
  #usage: Usage | null = null;
  #weightVersion: string | null = null;

  get finished(): boolean {
    return this.#finishReason !== null;
  }

  get finishReason(): string | null {
    return this.#finishReason;
  }

  get stopReason(): string | number | null {
    return this.#stopReason;
  }

  /** vLLM sends prompt ids once (the first chunk) and null afterwards: the first non-null wins. */
  addPromptIds(ids: number[] | null): void {
    if (ids === null || this.#promptTokenIds !== null) return;
    this.#promptTokenIds = ids;
    this.#invalidPromptIds = !ids.every(isInt32TokenId);
  }

  addUsage(usage: Usage | null): void {
    if (usage !== null) this.#usage = usage;
  }

  /** SGLang names the weights that served the call on its answers; the last one named wins. */
  addWeightVersion(weightVersion: string | null): void {
    if (weightVersion !== null) this.#weightVersion = weightVersion;
  }

  addChoice(fields: ChoiceTokenFields): void {
    if (fields.tokenIds !== null) {
      this.#sawTokenIds = true;
      for (const id of fields.tokenIds) {
        if (!isInt32TokenId(id)) this.#invalidCompletionIds = true;
        this.#completionTokenIds.push(id);
      }
    }
    if (fields.logprobs !== null) {
      this.#sawLogprobs = true;
      for (const logprob of fields.logprobs) this.#logprobs.push(logprob);
    }
    if (fields.finishReason !== null) {
      this.#finishReason = fields.finishReason;
      this.#stopReason = fields.stopReason;
    }
  }

  record(): ChatTokenRecord {
    const base = {
      promptTokenIds: this.#promptTokenIds,
      completionTokenIds: this.#sawTokenIds ? this.#completionTokenIds : null,
      completionLogprobs: this.#sawLogprobs ? this.#logprobs : null,
      finishReason: this.#finishReason,
      stopReason: this.#stopReason,
      usage: this.#usage,
      // only where the backend named one (SGLang): a vLLM call's record stays as it was
      ...(this.#weightVersion === null ? {} : { weightVersion: this.#weightVersion }),
    };
    const tokenSource = this.#sawTokenIds || this.#promptTokenIds !== null ? 'backend' : 'none';
    if (this.#invalidPromptIds || this.#invalidCompletionIds) {
      // numbers that are no token ids are no token data: a list holding one is not recorded as ids (the raw body and
      // stream keep it as sent: elide-prompt-ids.ts elides only what the row holds), the flag says why, and the
      // harness still gets the answer as sent, its text is good (docs/reliability.md)
      return {
        ...base,
        promptTokenIds: this.#invalidPromptIds ? null : base.promptTokenIds,
        completionTokenIds: this.#invalidCompletionIds ? null : base.completionTokenIds,
        completionLogprobs: this.#invalidCompletionIds ? null : base.completionLogprobs,
        tokenSource,
        flags: ['invalid_token_ids'],
      };
    }
    return { ...base, tokenSource, flags: tokenSource === 'none' ? [] : checkTokenRecord(base) };
  }

  /** usage in the backend's own field names, for assembled bodies */
  usageBody(): Record<string, number | undefined> | null {
    return this.#usage === null ? null : { prompt_tokens: this.#usage.promptTokens, completion_tokens: this.#usage.completionTokens };
  }
}
