import { alternativeTokens, type LogprobSeed } from './seeded-logprobs.js';

/** What formatting needs: the seeded source, the sampled logprobs by position, and how to show a token. */
export interface LogprobFormatting {
  source: LogprobSeed;
  /** the sampled token's logprob at each completion position */
  logprobs: readonly number[];
  /** how many alternatives were asked (`top_logprobs` for chat, `logprobs` for completions) */
  topLogprobs: number;
  /** one id decoded on its own, special tokens included (vLLM's `decoded_token`) */
  decodeToken(id: number): string;
}

export interface ChatLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface ChatLogprobEntry extends ChatLogprob {
  top_logprobs: ChatLogprob[];
}

/**
 * `choices[].logprobs.content` entries for completion positions `start …`, as vLLM's
 * `_create_chat_logprobs` builds them: `token`, `logprob`, UTF-8 `bytes`, and `top_logprobs` holding the
 * first `top_logprobs` of [sampled token, alternatives…].
 *
 * @example
 * chatLogprobsContent(formatting, [9707], 0); // [{ token: 'Hello', logprob: -0.01, bytes: [72, ...], top_logprobs: [] }]
 */
export function chatLogprobsContent(formatting: LogprobFormatting, tokenIds: readonly number[], start: number): ChatLogprobEntry[] {
  return tokenIds.map((id, offset) => {
    const position = start + offset;
    const logprob = formatting.logprobs[position] ?? -9999;
    const token = formatting.decodeToken(id);
    const top: ChatLogprob[] = [];
    if (formatting.topLogprobs > 0) {
      top.push({ token, logprob, bytes: utf8Bytes(token) });
      for (const alternative of alternativeTokens(formatting.source, position, id, logprob, formatting.topLogprobs - 1)) {
        top.push({ token: alternative.text, logprob: alternative.logprob, bytes: utf8Bytes(alternative.text) });
      }
    }
    return { token, logprob, bytes: utf8Bytes(token), top_logprobs: top };
  });
}

export interface CompletionLogprobs {
  text_offset: number[];
  token_logprobs: number[];
  tokens: string[];
  top_logprobs: Array<Record<string, number>>;
}

/**
 * Legacy `/v1/completions` logprobs (`logprobs: k`), as vLLM's `_create_completion_logprobs`: offsets count
 * characters (Python `len`) from `textOffset`, and each `top_logprobs` dict holds the sampled token plus k
 * alternatives.
 *
 * @example
 * completionLogprobs(formatting, [9707, 0], 0, 0); // { text_offset: [0, 5], token_logprobs: [...], tokens: ['Hello', '!'], ... }
 */
export function completionLogprobs(
  formatting: LogprobFormatting,
  tokenIds: readonly number[],
  start: number,
  textOffset: number,
): CompletionLogprobs {
  const result: CompletionLogprobs = { text_offset: [], token_logprobs: [], tokens: [], top_logprobs: [] };
  let offset = textOffset;
  tokenIds.forEach((id, index) => {
    const position = start + index;
    const logprob = formatting.logprobs[position] ?? -9999;
    const token = formatting.decodeToken(id);
    const top: Record<string, number> = { [token]: logprob };
    for (const alternative of alternativeTokens(formatting.source, position, id, logprob, formatting.topLogprobs)) {
      if (!(alternative.text in top)) top[alternative.text] = alternative.logprob;
    }
    result.text_offset.push(offset);
    result.token_logprobs.push(logprob);
    result.tokens.push(token);
    result.top_logprobs.push(top);
    offset += characterCount(token);
  });
  return result;
}

/** Python's `len(text)`: code points, not UTF-16 units. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _character of text) count++;
  return count;
}

function utf8Bytes(text: string): number[] {
  return [...Buffer.from(text, 'utf8')];
}
