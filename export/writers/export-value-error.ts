/**
 * A row value a writer cannot store faithfully: NaN or Infinity (not valid JSON, and never a sound training
 * value), a wrong type for its column, or null in a column that is not nullable. Thrown before the bad row
 * reaches the file; the writer stays usable for `abort()`, and `where` names the column (and the field inside a
 * nested value) so the adapter at fault is easy to find.
 *
 * @example
 * throw new ExportValueError('logprobs[3]', 'NaN is not valid JSON');
 */
export class ExportValueError extends Error {
  override readonly name = 'ExportValueError';
  /** the column, then the path inside it, e.g. `loss_fn_inputs.logprobs.data[3]`; '' at the top of a toJson value */
  readonly where: string;
  readonly reason: string;
  /** 1-based row of the file, once the writer knows it */
  readonly row: number | undefined;

  constructor(where: string, reason: string, row?: number) {
    super(`${row === undefined ? '' : `row ${row}, `}${where === '' ? 'value' : `column ${where}`}: ${reason}`);
    this.where = where;
    this.reason = reason;
    this.row = row;
  }

  /** The same error one level further out (`key` prepended to `where`), or with its row set. */
  within(key: string | number): ExportValueError {
    const inner = this.where === '' ? '' : this.where.startsWith('[') ? this.where : `.${this.where}`;
    return new ExportValueError(typeof key === 'number' ? `[${key}]${inner}` : `${key}${inner}`, this.reason, this.row);
  }

  atRow(row: number): ExportValueError {
    return new ExportValueError(this.where, this.reason, row);
  }
}
