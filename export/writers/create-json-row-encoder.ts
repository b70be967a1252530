import type { ColumnSpec, ExportRow } from '../../trainer-adapters/trainer-adapter.js';
import { expected } from './check-column-value.js';
import { invalidValueWithin, isInvalidExportValue } from './invalid-export-value.js';
import type { JsonByteBuffer } from './json-byte-buffer.js';
import { JSON_COLUMN_ENCODERS } from './json-column-encoders.js';

/**
 * Writes the JSONL line of a row (with its `\n`): one JSON object, keys in column order, each value checked and
 * encoded by its column type; keys of the row that are not columns are left out. Null (or a missing key) is
 * written as `null` in a nullable column and refused in any other. A refused row leaves the buffer as it was.
 *
 * @example
 * const writeRow = createJsonRowEncoder([{ name: 'ids', type: 'int32[]', description: '' }]);
 * writeRow(buffer, { ids: Int32Array.of(1, 2) }); // appends {"ids":[1,2]}\n
 */
export function createJsonRowEncoder(columns: readonly ColumnSpec[]): (buffer: JsonByteBuffer, row: ExportRow) => void {
  const parts = columns.map((column, index) => ({
    name: column.name,
    nullable: column.nullable === true,
    prefix: `${index === 0 ? '{' : ','}${JSON.stringify(column.name)}:`,
    encode: JSON_COLUMN_ENCODERS[column.type],
  }));
  return (buffer, row) => {
    const start = buffer.length;
    try {
      for (const part of parts) {
        buffer.appendText(part.prefix);
        const value = row[part.name];
        if (value === null || value === undefined) {
          if (!part.nullable) throw invalidValueWithin(expected('a value (the column is not nullable)', value), part.name);
          buffer.appendAscii('null');
          continue;
        }
        try {
          part.encode(buffer, value);
        } catch (error) {
          throw isInvalidExportValue(error) ? invalidValueWithin(error, part.name) : error;
        }
      }
    } catch (error) {
      buffer.truncate(start);
      throw error;
    }
    buffer.appendAscii(parts.length === 0 ? '{}\n' : '}\n');
  };
}
