/**
 * A format row as plain JSON for the pull API: typed arrays (token ids, masks, logprobs) become arrays of numbers,
 * as in the JSONL files `tokentap export` writes; everything else is kept.
 *
 * @example toWireJson({ prompt_ids: Int32Array.of(1, 2), meta: { mask: Uint8Array.of(1) } }) // { prompt_ids: [1, 2], meta: { mask: [1] } }
 */
export function toWireJson(value: unknown): unknown {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number | bigint>, toSafeNumber);
  if (Array.isArray(value)) return value.map(toWireJson);
  if (typeof value === 'bigint') return toSafeNumber(value);
  if (value === null || typeof value !== 'object') return value;
  const plain: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) plain[key] = toWireJson(item);
  return plain;
}

/** int64 columns may arrive as BigInt64Array; JSON has no bigint (token ids and counts fit a double exactly). */
function toSafeNumber(value: number | bigint): number {
  return typeof value === 'bigint' ? Number(value) : value;
}
