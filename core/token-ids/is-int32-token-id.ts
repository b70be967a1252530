/** The range of an Int32: token ids are stored packed as Int32 (store/pack-tokens.ts), Parquet has INT32 columns. */
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

/** The largest id an Int32 holds. */
export const INT32_TOKEN_ID_MAX = INT32_MAX;

/**
 * A whole number an Int32 holds exactly, from -2^31 to 2^31 - 1. `value | 0` is `value` for exactly these numbers
 * (NaN, infinities, fractions and anything wider come out as another number), and it is the cheapest test there
 * is: the recorder runs it over every id of every call it hands to its worker (gateway/recorder/record-worker-protocol.ts).
 *
 * @example isInt32(-100) // true; isInt32(2 ** 31), isInt32(0.5), isInt32('1') // false
 */
export function isInt32(value: unknown): value is number {
  return typeof value === 'number' && (value | 0) === value;
}

/**
 * A token id tokentap can hand on and store exactly: a whole number from 0 to 2^31 - 1. A tokenizer gives no
 * negative ids, and a wider one would be wrapped or refused by the store, so anything else is not token data
 * (a client's `"prompt":[2147483648]`, a backend's `-1`: issue 12).
 *
 * @example isInt32TokenId(151645) // true; isInt32TokenId(2 ** 31), isInt32TokenId(-1), isInt32TokenId(1.5) // false
 */
export function isInt32TokenId(value: unknown): value is number {
  return isInt32(value) && value >= 0;
}
