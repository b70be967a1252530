import { outputTokenLogprobs, outputTopLogprobs, type SglangLogprobSource } from './sglang-logprobs.js';

/**
 * Chat `logprobs.content` for output positions [start, start + ids.length), as serving_chat.py
 * `_process_logprobs_tokens` builds it from the triples (`return_text_in_logprobs` is always on for chat): `token`,
 * `bytes`, `logprob` (in that order, unlike vLLM) and `top_logprobs` from `output_top_logprobs` (a dict by text
 * first, so tokens with the same text collapse).
 *
 * @example
 * chatLogprobs(source, [9707], 0); // { content: [{ token: 'Hello', bytes: [72, …], logprob: -0.01, top_logprobs: [] }] }
 */
export function chatLogprobs(source: SglangLogprobSource, ids: readonly number[], start: number): { content: Array<Record<string, unknown>> } {
  const tops = source.topLogprobsNum > 0 ? outputTopLogprobs(source, ids, start) : [];
  const content = outputTokenLogprobs(source, ids, start).map(([logprob, , text], offset) => {
    const token = text ?? '';
    const top = Object.entries(topDict(tops[offset] ?? [])).map(([topToken, topLogprob]) => ({
      token: topToken,
      bytes: utf8Bytes(topToken),
      logprob: topLogprob,
    }));
    return { token, bytes: utf8Bytes(token), logprob, top_logprobs: top };
  });
  return { content };
}

/**
 * Completions `logprobs` (`LogProbs`) from the triples, as utils.py `to_openai_style_logprobs`: `text_offset` is -1
 * for every token (SGLang does not compute it), `top_logprobs` one dict by text per token.
 *
 * @example
 * completionLogprobs(source, [12095], 0); // { text_offset: [-1], token_logprobs: [-0.02], tokens: [' Paris'], top_logprobs: [{…}] }
 */
export function completionLogprobs(source: SglangLogprobSource, ids: readonly number[], start: number): Record<string, unknown> {
  const triples = outputTokenLogprobs(source, ids, start);
  const tops = source.topLogprobsNum > 0 ? outputTopLogprobs(source, ids, start) : [];
  return {
    text_offset: triples.map(() => -1),
    token_logprobs: triples.map(([logprob]) => logprob),
    tokens: triples.map(([, , text]) => text ?? ''),
    top_logprobs: tops.map(topDict),
  };
}

function topDict(top: ReadonlyArray<[number | null, number, string | null]>): Record<string, number | null> {
  const dict: Record<string, number | null> = {};
  for (const [logprob, , text] of top) dict[text ?? ''] = logprob;
  return dict;
}

function utf8Bytes(text: string): number[] {
  return [...Buffer.from(text, 'utf8')];
}
