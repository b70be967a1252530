/** The largest id an Int32 holds: token ids are stored packed as Int32 (store/pack-tokens.ts). */
export const INT32_TOKEN_ID_MAX = 2 ** 31 - 1;

/**
 * A token id tokentap can hand on and store exactly: a whole number from 0 to 2^31 - 1. A tokenizer gives no
 * negative ids, and a wider one would be wrapped or refused by the store, so anything else is not token data
 * (a client's `"prompt":[2147483648]`, a backend's `-1`: issue 12).
 *
 * @example isInt32TokenId(151645) // true; isInt32TokenId(2 ** 31), isInt32TokenId(-1), isInt32TokenId(1.5) // false
 */
export function isInt32TokenId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= INT32_TOKEN_ID_MAX;
}
