import { TokentapError, isTokentapError } from '../../core/errors/tokentap-error.js';

/** What an EXPORT_INVALID_VALUE points at, in its `details`. */
export interface InvalidValueDetails {
  /** the column, then the path inside it, e.g. `loss_fn_inputs.logprobs.data[3]`; '' at the top of a toJson value */
  readonly where: string;
  readonly reason: string;
  /** 1-based row of the file, once the writer knows it */
  readonly row: number | undefined;
}

/** A TokentapError with code EXPORT_INVALID_VALUE, as the writers build it. */
export type InvalidExportValue = TokentapError<'EXPORT_INVALID_VALUE'> & { readonly details: InvalidValueDetails };

/**
 * A row value a writer cannot store faithfully: NaN or Infinity (not valid JSON, and never a sound training
 * value), a wrong type for its column, or null in a column that is not nullable. Thrown before the bad row
 * reaches the file; the writer stays usable for `abort()`, and `where` names the column (and the field inside a
 * nested value) so the adapter at fault is easy to find. Not a user's mistake: the adapter or the data is at fault.
 *
 * @example
 * throw invalidExportValue('logprobs[3]', 'NaN is not valid JSON'); // message 'column logprobs[3]: NaN is not valid JSON'
 */
export function invalidExportValue(where: string, reason: string, row?: number): InvalidExportValue {
  const message = `${row === undefined ? '' : `row ${row}, `}${where === '' ? 'value' : `column ${where}`}: ${reason}`;
  return new TokentapError('EXPORT_INVALID_VALUE', { message, details: { where, reason, row } }) as InvalidExportValue;
}

/** @example if (isInvalidExportValue(error)) throw invalidValueWithin(error, 'logprobs'); */
export function isInvalidExportValue(value: unknown): value is InvalidExportValue {
  return isTokentapError(value, 'EXPORT_INVALID_VALUE') && typeof value.details?.where === 'string';
}

/**
 * The same refusal one level further out: `key` prepended to `where`.
 *
 * @example invalidValueWithin(invalidExportValue('[3]', 'NaN ...'), 'logprobs').details.where // 'logprobs[3]'
 */
export function invalidValueWithin(error: InvalidExportValue, key: string | number): InvalidExportValue {
  const { where, reason, row } = error.details;
  const inner = where === '' ? '' : where.startsWith('[') ? where : `.${where}`;
  return invalidExportValue(typeof key === 'number' ? `[${key}]${inner}` : `${key}${inner}`, reason, row);
}

/** @example invalidValueAtRow(error, 2).message // 'row 2, column logprobs[1]: ...' */
export function invalidValueAtRow(error: InvalidExportValue, row: number): InvalidExportValue {
  return invalidExportValue(error.details.where, error.details.reason, row);
}
