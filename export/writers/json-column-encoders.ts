import type { ColumnType } from '../../trainer-adapters/trainer-adapter.js';
import { checkedElements, expected, expectInt32, expectInteger, expectNumber, expectString, finite } from './check-column-value.js';
import { invalidValueWithin } from './invalid-export-value.js';
import type { JsonByteBuffer } from './json-byte-buffer.js';
import { writeJsonValue, writeTypedArray } from './write-json-value.js';

/** Writes the JSON of one non-null value of a column type; throws an EXPORT_INVALID_VALUE error (`where` relative to the column). */
export type JsonColumnEncoder = (buffer: JsonByteBuffer, value: unknown) => void;

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The JSONL encoder of each column type. Typed arrays take the fast paths of writeTypedArray; plain number[] is
 * accepted too (ExportRow allows it for int64[]) and checked element by element. Values are checked against the
 * same ranges as the Parquet writer (check-column-value.ts), so a row one format accepts the other accepts too.
 *
 * @example
 * JSON_COLUMN_ENCODERS['float32[]'](buffer, Float32Array.of(0.5, -1)); // appends [0.5,-1]
 */
export const JSON_COLUMN_ENCODERS: Record<ColumnType, JsonColumnEncoder> = {
  string: (buffer, value) => buffer.appendText(JSON.stringify(expectString(value))),
  int32: (buffer, value) => buffer.appendAscii(String(expectInt32(value))),
  int64: (buffer, value) => buffer.appendAscii(typeof value === 'bigint' ? value.toString() : String(expectInteger(value, -SAFE, SAFE, 'an int64'))),
  float32: (buffer, value) => buffer.appendFloat32(finite(Math.fround(expectNumber(value)))),
  float64: (buffer, value) => buffer.appendAscii(String(finite(expectNumber(value)))),
  bool: (buffer, value) => {
    if (typeof value !== 'boolean') throw expected('a boolean', value);
    buffer.appendAscii(value ? 'true' : 'false');
  },
  'int32[]': (buffer, value) =>
    value instanceof Int32Array ||
    value instanceof Int16Array ||
    value instanceof Uint16Array ||
    value instanceof Int8Array ||
    value instanceof Uint8Array
      ? writeTypedArray(buffer, value)
      : writeNumbers(buffer, value, expectInt32, 'Int32Array or number[]'),
  'int64[]': (buffer, value) =>
    value instanceof Int32Array || value instanceof BigInt64Array
      ? writeTypedArray(buffer, value)
      : writeNumbers(
          buffer,
          value,
          (element) => (typeof element === 'bigint' ? element : expectInteger(element, -SAFE, SAFE, 'an int64')),
          'Int32Array or number[]',
        ),
  'float32[]': (buffer, value) =>
    buffer.appendFloat32Array(
      value instanceof Float32Array
        ? value
        : Float32Array.from(checkedElements(value, (element) => finite(expectNumber(element)), 'Float32Array or number[]')),
    ),
  'uint8[]': (buffer, value) =>
    value instanceof Uint8Array
      ? writeTypedArray(buffer, value)
      : writeNumbers(buffer, value, (element) => expectInteger(element, 0, 255, 'a uint8'), 'Uint8Array or number[]'),
  'string[]': (buffer, value) => {
    if (!Array.isArray(value)) throw expected('string[]', value);
    value.forEach((element, index) => {
      if (typeof element !== 'string') throw invalidValueWithin(expected('a string', element), index);
    });
    buffer.appendText(JSON.stringify(value));
  },
  json: writeJsonValue,
};

function writeNumbers(buffer: JsonByteBuffer, value: unknown, check: (element: unknown) => number | bigint, accepted: string): void {
  buffer.appendAscii(`[${checkedElements(value, check, accepted).join(',')}]`);
}
