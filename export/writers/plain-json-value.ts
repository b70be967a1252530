import { formatFloat32 } from './decimal-digits.js';
import { encodeJsonValue } from './write-json-value.js';

/**
 * A `json` column value as plain JSON data for hyparquet-writer, which JSON-encodes it once (JSON.stringify) into
 * the Parquet string: typed arrays become arrays of numbers (a Float32Array element as the number its shortest
 * float32 decimal reads as, the digits JSONL writes), `toJSON` is called, undefined array elements become null and
 * undefined, function and symbol members are left out, all by writeJsonValue's rules, so the Parquet string and the
 * JSONL value agree. A value writeJsonValue refuses (NaN, Infinity, a function, a DataView) is refused with its
 * error (EXPORT_INVALID_VALUE naming where), by encodeJsonValue itself.
 *
 * @example
 * plainJsonValue({ ids: Int32Array.of(1, 2), weight: Float32Array.of(0.1) }); // { ids: [1, 2], weight: [0.1] }
 */
export function plainJsonValue(value: unknown): unknown {
  const plain = toPlain(value);
  if (plain === REFUSED) {
    encodeJsonValue(value); // throws the refusal, worded and placed as for JSONL
    throw new Error('plainJsonValue: a value refused here was accepted by encodeJsonValue');
  }
  return plain;
}

/** Marks a value writeJsonValue refuses; encodeJsonValue then says why. */
const REFUSED: unique symbol = Symbol('refused');

function toPlain(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : REFUSED;
    case 'bigint':
      // written as an integer, which JSON reads back as the nearest double
      return Number(value);
    case 'object':
      if (value === null) return null;
      if (ArrayBuffer.isView(value)) return typedArrayNumbers(value);
      if (Array.isArray(value)) return plainArray(value);
      return plainObject(value as Record<string, unknown>);
    default:
      return REFUSED;
  }
}

function typedArrayNumbers(array: ArrayBufferView): number[] | typeof REFUSED {
  if (array instanceof DataView) return REFUSED;
  if (array instanceof Float32Array) {
    const numbers = new Array<number>(array.length);
    for (let index = 0; index < array.length; index += 1) {
      const element = array[index] as number;
      if (!Number.isFinite(element)) return REFUSED;
      numbers[index] = Number(formatFloat32(element));
    }
    return numbers;
  }
  const numbers = Array.from(array as unknown as ArrayLike<number | bigint>, Number);
  return numbers.every(Number.isFinite) ? numbers : REFUSED;
}

function plainArray(array: readonly unknown[]): unknown[] | typeof REFUSED {
  const plain = new Array<unknown>(array.length);
  for (let index = 0; index < array.length; index += 1) {
    // JSON.stringify writes holes and undefined elements as null
    const element = array[index] === undefined ? null : toPlain(array[index]);
    if (element === REFUSED) return REFUSED;
    plain[index] = element;
  }
  return plain;
}

function plainObject(object: Record<string, unknown>): unknown {
  const toJson = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return toPlain(toJson.call(object));
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    const converted = toPlain(member);
    if (converted === REFUSED) return REFUSED;
    // an own `__proto__` key stays a key, as JSON.parse of the JSONL text makes it
    Object.defineProperty(plain, key, { value: converted, enumerable: true, writable: true, configurable: true });
  }
  return plain;
}
