import { expect } from 'vitest';
import { isAdapterSkip, type ColumnSpec, type ColumnType, type ExportRow, type AdapterSkip } from '../../trainer-adapters/index.js';

const IS_TYPE: Record<ColumnType, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  int32: (value) => Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31,
  int64: (value) => Number.isInteger(value),
  float32: (value) => typeof value === 'number' && Number.isFinite(value),
  float64: (value) => typeof value === 'number' && Number.isFinite(value),
  bool: (value) => typeof value === 'boolean',
  'int32[]': (value) => value instanceof Int32Array,
  'int64[]': (value) => value instanceof Int32Array || (Array.isArray(value) && value.every(Number.isInteger)),
  'float32[]': (value) => value instanceof Float32Array,
  'uint8[]': (value) => value instanceof Uint8Array,
  'string[]': (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  json: (value) => value !== undefined && JSON.stringify(value) !== undefined,
};

/**
 * Asserts a row (not a skip) has exactly the columns' names, in column order, each value of its column's type
 * (ExportRow's contract), null only where the column is nullable. Returns the row for further checks.
 */
export function expectRowMatchesColumns(result: ExportRow | AdapterSkip, columns: readonly ColumnSpec[]): ExportRow {
  expect(isAdapterSkip(result), `expected a row, got skip ${JSON.stringify(result)}`).toBe(false);
  const row = result as ExportRow;
  expect(Object.keys(row)).toEqual(columns.map((column) => column.name));
  for (const column of columns) {
    const value = row[column.name];
    if (value === null && column.nullable === true) continue;
    expect(IS_TYPE[column.type](value), `column ${column.name} (${column.type}) holds ${String(value)}`).toBe(true);
  }
  return row;
}
