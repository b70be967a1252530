import { alternativeTokens, sampledLogprobs, type LogprobSeed } from '../seeded-logprobs.js';

/** SGLang's logprob entry: `[logprob, token_id, text]`, text null unless `return_text_in_logprobs`. */
export type LogprobTriple = [number | null, number, string | null];

/** What the logprob fields of one request are built from. */
export interface SglangLogprobSource {
  source: LogprobSeed;
  /** the sampled token's logprob per output position */
  outputLogprobs: readonly number[];
  promptTokenIds: readonly number[];
  /** `logprob_start_len`: -1 (SGLang's default) scores only the last prompt token */
  logprobStartLen: number;
  topLogprobsNum: number;
  returnText: boolean;
  decodeToken(id: number): string;
}

/**
 * `output_token_logprobs` for output positions [start, end): one `[logprob, id, text|null]` per output id, in order.
 *
 * @example
 * outputTokenLogprobs(source, [12095, 13], 0); // [[-0.02, 12095, null], [-0.1, 13, null]]
 */
export function outputTokenLogprobs(source: SglangLogprobSource, ids: readonly number[], start: number): LogprobTriple[] {
  return ids.map((id, offset) => [source.outputLogprobs[start + offset] ?? -9999, id, text(source, id)]);
}

/**
 * `output_top_logprobs` for output positions [start, end): `top_logprobs_num` triples per position (the sampled
 * token first, then less likely ones).
 *
 * @example
 * outputTopLogprobs(source, [12095], 0); // [[[-0.02, 12095, null], [-1.3, 11, null]]]
 */
export function outputTopLogprobs(source: SglangLogprobSource, ids: readonly number[], start: number): LogprobTriple[][] {
  return ids.map((id, offset) => topAt(source, source.source, start + offset, id, source.outputLogprobs[start + offset] ?? -9999));
}

/**
 * `input_token_logprobs`: the prompt positions from `logprob_start_len` (the last one for -1), the first entry's logprob
 * null, as the scheduler's `[None] + input_token_logprobs[:-1]` (scheduler_output_processor_mixin.py) leaves it.
 *
 * @example
 * inputTokenLogprobs(source); // [[null, 198, null]]
 */
export function inputTokenLogprobs(source: SglangLogprobSource): LogprobTriple[] {
  const ids = source.promptTokenIds;
  const start = inputStart(source);
  const values = promptLogprobs(source);
  return ids.slice(start).map((id, offset) => [offset === 0 ? null : (values[start + offset] ?? -9999), id, text(source, id)]);
}

/** `input_top_logprobs`: null for the first scored prompt position, then top triples. @example inputTopLogprobs(source); // [null] */
export function inputTopLogprobs(source: SglangLogprobSource): Array<LogprobTriple[] | null> {
  const ids = source.promptTokenIds;
  const start = inputStart(source);
  const values = promptLogprobs(source);
  const seed = promptSeed(source);
  return ids.slice(start).map((id, offset) => (offset === 0 ? null : topAt(source, seed, start + offset, id, values[start + offset] ?? -9999)));
}

function inputStart(source: SglangLogprobSource): number {
  const last = Math.max(0, source.promptTokenIds.length - 1);
  return source.logprobStartLen < 0 ? last : Math.min(source.logprobStartLen, last);
}

function promptSeed(source: SglangLogprobSource): LogprobSeed {
  return { seed: source.source.seed, promptHash: (source.source.promptHash ^ 0x5bd1e995) >>> 0 };
}

function promptLogprobs(source: SglangLogprobSource): number[] {
  return sampledLogprobs(promptSeed(source), source.promptTokenIds);
}

function topAt(source: SglangLogprobSource, seed: LogprobSeed, position: number, id: number, logprob: number): LogprobTriple[] {
  if (source.topLogprobsNum <= 0) return [];
  const top: LogprobTriple[] = [[logprob, id, text(source, id)]];
  for (const alternative of alternativeTokens(seed, position, id, logprob, source.topLogprobsNum - 1)) {
    top.push([alternative.logprob, alternative.id, source.returnText ? alternative.text : null]);
  }
  return top;
}

function text(source: SglangLogprobSource, id: number): string | null {
  return source.returnText ? source.decodeToken(id) : null;
}
