import { TokentapError } from '../../core/errors/tokentap-error.js';

/**
 * Reads a token-id array from a backend payload: null/missing stay null (they mean the same in vLLM), a list of
 * numbers is returned as it is (no copy: prompts run to tens of thousands of ids), anything else is an
 * unreadable response, never coerced into ids. Whether each number is a token id (`isInt32TokenId`) is
 * judged by `TokenTally`: a backend's `-1` or `2147483648` flags the call, its text is still good (issue 12).
 *
 * @example readTokenIds(chunk.prompt_token_ids, 'prompt_token_ids') // [151644, 872, ...] or null
 */
export function readTokenIds(value: unknown, field: string): number[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) throw malformed(field);
  for (let index = 0; index < value.length; index++) {
    if (typeof value[index] !== 'number') throw malformed(field);
  }
  return value as number[];
}

function malformed(field: string): TokentapError {
  return new TokentapError('TT_BACKEND_BAD_RESPONSE', { message: `Inference backend sent ${field} that is not a list of numbers (token ids)` });
}
