import { isInt32 } from '../../core/token-ids/is-int32-token-id.js';
import { invalidExportValue, invalidValueWithin, isInvalidExportValue, type InvalidExportValue } from './invalid-export-value.js';

// Value checks shared by the JSONL and Parquet writers, so a row one format accepts the other accepts too.
// Each throws an EXPORT_INVALID_VALUE error whose `where` is relative to the value; callers prepend the column.

/** @example expectInt32(-100) // -100; a fraction, 2^31 or a string throws */
export function expectInt32(value: unknown): number {
  if (!isInt32(value)) throw expected('an int32', value);
  return value;
}

/** @example expectInteger(3, 0, 255, 'a uint8') // 3 */
export function expectInteger(value: unknown, minimum: number, maximum: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum) throw expected(what, value);
  return value;
}

/** @example expectNumber(0.5) // 0.5; NaN passes here and is refused where it is written */
export function expectNumber(value: unknown): number {
  if (typeof value !== 'number') throw expected('a number', value);
  return value;
}

/** @example expectString('a') // 'a' */
export function expectString(value: unknown): string {
  if (typeof value !== 'string') throw expected('a string', value);
  return value;
}

/** @example finite(0.5) // 0.5; finite(NaN) throws */
export function finite(value: number): number {
  if (!Number.isFinite(value)) throw invalidExportValue('', `${value} is not a finite number (JSON has no NaN or Infinity)`);
  return value;
}

/** @example throw expected('a string', 42) // "expected a string, got number 42" */
export function expected(what: string, value: unknown): InvalidExportValue {
  const shown =
    value === null || value === undefined
      ? String(value)
      : ArrayBuffer.isView(value)
        ? value.constructor.name
        : Array.isArray(value)
          ? 'an array'
          : `${typeof value} ${String(value).slice(0, 40)}`;
  return invalidExportValue('', `expected ${what}, got ${shown}`);
}

/**
 * Checks every element of an array value, naming the element's index in the error.
 *
 * @example checkedElements([1, 2], expectNumber, 'number[]') // [1, 2]
 */
export function checkedElements<T>(value: unknown, check: (element: unknown) => T, accepted: string): T[] {
  if (!Array.isArray(value)) throw expected(accepted, value);
  const elements = new Array<T>(value.length);
  for (let index = 0; index < value.length; index += 1) {
    try {
      elements[index] = check(value[index]);
    } catch (error) {
      throw isInvalidExportValue(error) ? invalidValueWithin(error, index) : error;
    }
  }
  return elements;
}
