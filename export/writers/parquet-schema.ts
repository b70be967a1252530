import type { ParquetWriter } from 'hyparquet-writer';
import type { ColumnSpec, ColumnType } from '../../trainer-adapters/trainer-adapter.js';

/** hyparquet's SchemaElement, reached through hyparquet-writer (hyparquet itself is not a direct dependency). */
export type ParquetSchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

type Leaf = Omit<ParquetSchemaElement, 'name' | 'repetition_type'>;

const STRING: Leaf = { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
// uint8 is annotated with the legacy converted type only: hyparquet-writer 0.17.0 writes the INTEGER logical
// type's bitWidth as an i32 where the Thrift spec says i8, and DuckDB then rejects the footer ("Invalid data").
const UINT8: Leaf = { type: 'INT32', converted_type: 'UINT_8' };

const SCALARS: Record<Exclude<ColumnType, `${string}[]`>, Leaf> = {
  string: STRING,
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  float32: { type: 'FLOAT' },
  float64: { type: 'DOUBLE' },
  bool: { type: 'BOOLEAN' },
  json: { type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } },
};

const LIST_ELEMENTS: Record<Extract<ColumnType, `${string}[]`>, Leaf> = {
  'int32[]': { type: 'INT32' },
  'int64[]': { type: 'INT64' },
  'float32[]': { type: 'FLOAT' },
  'uint8[]': UINT8,
  'string[]': STRING,
};

/**
 * The Parquet schema of a format's columns, in order: scalars as annotated primitives, arrays as the standard
 * 3-level LIST (`<name> (LIST) / list (repeated) / element (required)`), so DuckDB reads INTEGER[], UTINYINT[],
 * FLOAT[], VARCHAR[] and pyarrow list<int32>, list<uint8>, list<float>, list<string>. A nullable column is
 * OPTIONAL (for a list: the whole list may be null; its elements never are).
 *
 * @example
 * parquetSchemaOf([{ name: 'ids', type: 'int32[]', description: '' }]);
 * // [{ name: 'root', num_children: 1 }, { name: 'ids', converted_type: 'LIST', ... }, { name: 'list', ... }, { name: 'element', type: 'INT32', ... }]
 */
export function parquetSchemaOf(columns: readonly ColumnSpec[]): ParquetSchemaElement[] {
  const schema: ParquetSchemaElement[] = [{ name: 'root', num_children: columns.length }];
  for (const column of columns) {
    const repetition = column.nullable === true ? 'OPTIONAL' : 'REQUIRED';
    if (column.type.endsWith('[]')) {
      schema.push(
        { name: column.name, repetition_type: repetition, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'REQUIRED', ...LIST_ELEMENTS[column.type as keyof typeof LIST_ELEMENTS] },
      );
    } else {
      schema.push({ name: column.name, repetition_type: repetition, ...SCALARS[column.type as keyof typeof SCALARS] });
    }
  }
  return schema;
}
