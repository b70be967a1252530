import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { isRecord } from '../../../core/json/is-record.js';
import { readTokenIds } from '../read-token-ids.js';
import { completionLogprobs, completionUsage, finishOf } from './generate-meta-info.js';

export interface GenerateToCompletionOptions {
  /** the ids sent as `input_ids`: the translated payloads carry them as `prompt_token_ids`, as vLLM's do */
  promptIds: readonly number[];
  /** the model name the call was made for (`/generate` answers carry none) */
  model: string | null;
  /**
   * the replica's `--incremental-streaming-output` as its probe found it; only a hint until the stream itself shows
   * which it is (a chunk whose `output_ids` count equals `meta_info.completion_tokens` after the first is cumulative)
   */
  incrementalStreaming?: boolean | undefined;
}

/**
 * Rewrites SGLang `/generate` answers, in place, into what vLLM's `/v1/completions` would have sent for the same
 * generation, so the completions assembler and the chat translation read them unchanged (docs/backends.md).
 * SGLang facts (tokenizer_manager.py `_handle_batch_output`, http_server.py `generate_request`):
 * - streams are `data: {text, output_ids, meta_info}` events then `data: [DONE]`; `text` and `output_ids` hold
 *   everything so far, or only the new part with `--incremental-streaming-output` (and then meta_info's
 *   `output_token_logprobs` too); `meta_info.completion_tokens` always counts every id so far;
 * - an incremental stream's abort chunk may re-send ids already sent (serving_chat.py keeps only what brings the
 *   total up to completion_tokens, and so does this);
 * - `meta_info.finish_reason` is null until the end, then `{type: stop|length|abort, matched?}`, `matched` being
 *   the stop token id (EOS included, kept in `output_ids`) or the stop string (trimmed from `text` only).
 *
 * @example
 * const translate = new GenerateToCompletion({ promptIds, model: 'Qwen/Qwen3-8B' });
 * translate.chunk(payload); // payload is now a text_completion chunk
 */
export class GenerateToCompletion {
  readonly #options: GenerateToCompletionOptions;
  readonly #created = Math.floor(Date.now() / 1000);
  #incremental: boolean | null = null;
  #ids = 0;
  #textLength = 0;
  #logprobs = 0;
  #chunks = 0;

  constructor(options: GenerateToCompletionOptions) {
    this.#options = options;
  }

  /** One streamed `/generate` payload -> a text_completion chunk (prompt ids on the first, usage on the finishing one). */
  chunk(payload: Record<string, unknown>): void {
    const meta = readMetaInfo(payload);
    const outputIds = readTokenIds(payload.output_ids, 'output_ids') ?? [];
    const incremental = this.#modeFor(outputIds, meta);
    const newIds = incremental ? outputIds.slice(0, this.#cap(outputIds.length, meta)) : outputIds.slice(this.#ids);
    const text = typeof payload.text === 'string' ? payload.text : '';
    const newText = incremental ? text : text.slice(this.#textLength);
    const logprobs = completionLogprobs(meta, incremental ? 0 : this.#logprobs, newIds.length);
    this.#ids += newIds.length;
    this.#textLength = incremental ? this.#textLength + text.length : Math.max(this.#textLength, text.length);
    this.#logprobs += logprobs?.token_logprobs.length ?? 0;
    const finish = finishOf(meta);
    const first = this.#chunks++ === 0;
    const choice: Record<string, unknown> = {
      index: 0,
      text: newText,
      logprobs,
      finish_reason: finish.finishReason,
      stop_reason: finish.stopReason,
      token_ids: newIds,
      ...(first ? { prompt_token_ids: [...this.#options.promptIds] } : {}),
    };
    this.#rewrite(payload, meta, choice, finish.finishReason !== null);
  }

  /** A whole `/generate` body -> a text_completion body. Throws TT_BACKEND_BAD_RESPONSE for a body that is no answer. */
  body(body: Record<string, unknown>): void {
    const meta = readMetaInfo(body);
    const outputIds = readTokenIds(body.output_ids, 'output_ids') ?? [];
    const finish = finishOf(meta);
    const choice: Record<string, unknown> = {
      index: 0,
      text: typeof body.text === 'string' ? body.text : '',
      logprobs: completionLogprobs(meta, 0, outputIds.length),
      finish_reason: finish.finishReason,
      stop_reason: finish.stopReason,
      token_ids: outputIds,
      prompt_token_ids: [...this.#options.promptIds],
    };
    this.#rewrite(body, meta, choice, true);
  }

  #rewrite(payload: Record<string, unknown>, meta: Record<string, unknown>, choice: Record<string, unknown>, last: boolean): void {
    for (const key of Object.keys(payload)) delete payload[key];
    payload.id = typeof meta.id === 'string' ? meta.id : null;
    payload.object = 'text_completion';
    payload.created = this.#created;
    payload.model = this.#options.model;
    payload.choices = [choice];
    if (last) payload.usage = completionUsage(meta);
    // SGLang's own OpenAI endpoints carry it so (`metadata: {weight_version}`); the assemblers read it there
    if (typeof meta.weight_version === 'string') payload.metadata = { weight_version: meta.weight_version };
  }

  /** Whether this stream sends only new ids: decided by the first chunk that can tell, the replica's hint until then. */
  #modeFor(outputIds: readonly number[], meta: Record<string, unknown>): boolean {
    if (this.#incremental !== null) return this.#incremental;
    const total = meta.completion_tokens;
    if (this.#ids > 0 && typeof total === 'number' && total > this.#ids) {
      this.#incremental = outputIds.length !== total;
      return this.#incremental;
    }
    return this.#options.incrementalStreaming === true;
  }

  /** How many of an incremental chunk's ids are new: never past `completion_tokens`. */
  #cap(length: number, meta: Record<string, unknown>): number {
    const total = meta.completion_tokens;
    return typeof total === 'number' ? Math.max(0, Math.min(length, total - this.#ids)) : length;
  }
}

function readMetaInfo(payload: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(payload.meta_info)) {
    throw new TokentapError('TT_BACKEND_BAD_RESPONSE', {
      message: `SGLang /generate sent a payload without meta_info: ${JSON.stringify(payload).slice(0, 200)}`,
    });
  }
  return payload.meta_info;
}
