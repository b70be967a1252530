import type { ColumnType } from '../../trainer-adapters/trainer-adapter.js';
import { checkedElements, expected, expectInt32, expectInteger, expectNumber, expectString, finite } from './check-column-value.js';
import { invalidExportValue } from './invalid-export-value.js';
import { plainJsonValue } from './plain-json-value.js';

/** One non-null row value as hyparquet-writer takes it; throws an EXPORT_INVALID_VALUE error (`where` relative to the column). */
export type ParquetColumnValue = (value: unknown) => unknown;

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * How each column type's values are checked (the same checks as JSONL) and handed to hyparquet-writer: INT64 as
 * bigint, lists as plain arrays (its Dremel encoder takes Array.isArray values only, so typed arrays are copied,
 * which also frees the caller to reuse its buffers), json as plain JSON data (plainJsonValue) that hyparquet-writer
 * encodes once, so the Parquet string and the JSONL value agree (typed arrays inside it, NaN refused).
 *
 * @example
 * PARQUET_COLUMN_VALUES['int64[]'](Int32Array.of(1, 2)); // [1n, 2n]
 */
export const PARQUET_COLUMN_VALUES: Record<ColumnType, ParquetColumnValue> = {
  string: expectString,
  int32: expectInt32,
  int64: (value) => (typeof value === 'bigint' ? value : BigInt(expectInteger(value, -SAFE, SAFE, 'an int64'))),
  float32: (value) => finite(Math.fround(expectNumber(value))),
  float64: (value) => finite(expectNumber(value)),
  bool: (value) => {
    if (typeof value !== 'boolean') throw expected('a boolean', value);
    return value;
  },
  'int32[]': (value) =>
    value instanceof Int32Array ||
    value instanceof Int16Array ||
    value instanceof Uint16Array ||
    value instanceof Int8Array ||
    value instanceof Uint8Array
      ? Array.from(value)
      : checkedElements(value, expectInt32, 'Int32Array or number[]'),
  'int64[]': (value) =>
    value instanceof Int32Array
      ? Array.from(value, BigInt)
      : value instanceof BigInt64Array
        ? Array.from(value)
        : checkedElements(
            value,
            (element) => (typeof element === 'bigint' ? element : BigInt(expectInteger(element, -SAFE, SAFE, 'an int64'))),
            'Int32Array or number[]',
          ),
  'float32[]': (value) =>
    value instanceof Float32Array
      ? finiteFloats(value)
      : checkedElements(value, (element) => finite(Math.fround(expectNumber(element))), 'Float32Array or number[]'),
  'uint8[]': (value) =>
    value instanceof Uint8Array
      ? Array.from(value)
      : checkedElements(value, (element) => expectInteger(element, 0, 255, 'a uint8'), 'Uint8Array or number[]'),
  'string[]': (value) => checkedElements(value, expectString, 'string[]'),
  json: plainJsonValue,
};

function finiteFloats(values: Float32Array): number[] {
  const elements = new Array<number>(values.length);
  for (let index = 0; index < values.length; index += 1) {
    const element = values[index]!;
    // NaN and ±Infinity are the only float32 values for which element - element is not 0
    if (element - element !== 0) throw invalidExportValue(`[${index}]`, `${element} is not a finite number (JSON has no NaN or Infinity)`);
    elements[index] = element;
  }
  return elements;
}
