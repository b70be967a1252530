import { finite } from './check-column-value.js';
import { invalidExportValue, invalidValueWithin, isInvalidExportValue } from './invalid-export-value.js';
import { JsonByteBuffer, type IntegerArray } from './json-byte-buffer.js';

/**
 * Writes the JSON of a value, like JSON.stringify but faithful for training data: typed arrays become arrays of
 * numbers (JSON.stringify would write `{"0":..}`), Float32Array values as the shortest decimal that reads back as
 * the same float32 (`0.1`, not the widened double's `0.10000000149011612`), and NaN / Infinity are refused instead of silently becoming `null`.
 * Objects keep their key order and skip undefined members, as JSON.stringify does; bigints are written as integers.
 * On a refusal the buffer may hold part of the value: the caller truncates it.
 *
 * @example
 * writeJsonValue(buffer, { tokens: Int32Array.of(1, 2), weights: Float32Array.of(0.5) }); // {"tokens":[1,2],"weights":[0.5]}
 */
export function writeJsonValue(buffer: JsonByteBuffer, value: unknown): void {
  switch (typeof value) {
    case 'string':
      buffer.appendText(JSON.stringify(value));
      return;
    case 'number':
      buffer.appendAscii(String(finite(value)));
      return;
    case 'boolean':
      buffer.appendAscii(value ? 'true' : 'false');
      return;
    case 'bigint':
      buffer.appendAscii(value.toString());
      return;
    case 'object':
      if (value === null) buffer.appendAscii('null');
      else if (ArrayBuffer.isView(value)) writeTypedArray(buffer, value);
      else if (Array.isArray(value)) writeArray(buffer, value);
      else writeObject(buffer, value as Record<string, unknown>);
      return;
    default:
      throw invalidExportValue('', `a ${typeof value} is not a JSON value`);
  }
}

/**
 * The JSON text of a value, by writeJsonValue's rules.
 *
 * @example
 * encodeJsonValue({ ids: Int32Array.of(1, 2) }); // '{"ids":[1,2]}'
 */
export function encodeJsonValue(value: unknown): string {
  const buffer = new JsonByteBuffer(256);
  writeJsonValue(buffer, value);
  return Buffer.from(buffer.view()).toString('utf8');
}

/**
 * Typed arrays as arrays of numbers: integers and float32 digit by digit (JsonByteBuffer), Float64Array through
 * the native join, whose text is then scanned for NaN / Infinity (finite numbers never contain `N` or `I`).
 */
export function writeTypedArray(buffer: JsonByteBuffer, array: ArrayBufferView): void {
  if (array instanceof Float32Array) {
    buffer.appendFloat32Array(array);
  } else if (array instanceof Float64Array) {
    const joined = array.join(',');
    if (joined.includes('N') || joined.includes('I')) {
      const index = array.findIndex((element) => !Number.isFinite(element));
      throw invalidExportValue(`[${index}]`, `${array[index]} is not a finite number (JSON has no NaN or Infinity)`);
    }
    buffer.appendAscii(`[${joined}]`);
  } else if (array instanceof BigInt64Array || array instanceof BigUint64Array) {
    buffer.appendAscii(`[${array.join(',')}]`);
  } else if (array instanceof DataView) {
    throw invalidExportValue('', 'a DataView is not a JSON value');
  } else {
    buffer.appendIntegerArray(array as IntegerArray);
  }
}

function writeArray(buffer: JsonByteBuffer, array: readonly unknown[]): void {
  buffer.appendAscii('[');
  for (let index = 0; index < array.length; index += 1) {
    if (index !== 0) buffer.appendAscii(',');
    try {
      // JSON.stringify writes holes and undefined elements as null
      writeJsonValue(buffer, array[index] === undefined ? null : array[index]);
    } catch (error) {
      throw isInvalidExportValue(error) ? invalidValueWithin(error, index) : error;
    }
  }
  buffer.appendAscii(']');
}

function writeObject(buffer: JsonByteBuffer, object: Record<string, unknown>): void {
  const toJson = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') {
    writeJsonValue(buffer, toJson.call(object));
    return;
  }
  buffer.appendAscii('{');
  let first = true;
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    buffer.appendText(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    try {
      writeJsonValue(buffer, member);
    } catch (error) {
      throw isInvalidExportValue(error) ? invalidValueWithin(error, key) : error;
    }
  }
  buffer.appendAscii('}');
}
