import { readFileSync, readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecordWriter } from '../../../export/writers/record-writer.js';
import { isInvalidExportValue } from '../../../export/writers/invalid-export-value.js';
import type { ColumnSpec, ExportRow } from '../../../trainer-adapters/trainer-adapter.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { ALL_TYPES, allTypesRows, arbitraryFloat32s } from './writer-fixtures.js';

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  folder = makeTempDir('tokentap-jsonl-');
});
afterEach(() => folder.remove());

async function writeJsonl(
  columns: readonly ColumnSpec[],
  rows: ExportRow[],
  extra: { toJson?: (row: ExportRow) => unknown } = {},
): Promise<string[]> {
  const writer = createRecordWriter({ path: folder.file('out.jsonl'), columns, metadata: { format: 'test' }, ...extra });
  for (const row of rows) await writer.write(row);
  const result = await writer.close();
  const text = readFileSync(folder.file('out.jsonl'), 'utf8');
  expect(result).toEqual({ path: folder.file('out.jsonl'), bytes: Buffer.byteLength(text), rows: rows.length });
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

/** A row value as JSON.parse should give it back: typed arrays as number arrays, float32 rounded. */
function expectedJson(column: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'float32') return Math.fround(value as number);
  if (ArrayBuffer.isView(value) || column.type.endsWith('[]')) return Array.from(value as ArrayLike<number>);
  return value;
}

describe('JSONL writer', () => {
  it('writes one object per line, keys in column order, every column type read back by JSON.parse', async () => {
    const rows = allTypesRows();
    const lines = await writeJsonl(ALL_TYPES, rows);
    expect(lines).toHaveLength(rows.length);
    lines.forEach((line, index) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(ALL_TYPES.map((column) => column.name));
      for (const column of ALL_TYPES) {
        const expected = expectedJson(column, rows[index]![column.name]);
        // float32 is written as its shortest decimal: it reads back as the same float32, not the same double
        if (column.type === 'float32[]') expect((parsed[column.name] as number[]).map(Math.fround)).toEqual(expected);
        else if (column.type === 'float32') expect(Math.fround(parsed[column.name] as number)).toBe(expected);
        else expect(parsed[column.name], column.name).toEqual(expected);
      }
    });
  });

  it('writes float32 values as decimals that parse back to the same float32, shorter than the widened double', async () => {
    const logprobs = arbitraryFloat32s(20_000);
    const [line] = await writeJsonl(
      [
        { name: 'logprobs', type: 'float32[]', description: '' },
        { name: 'advantage', type: 'float32', description: '' },
      ],
      [{ logprobs, advantage: Math.fround(0.1) }],
    );
    const parsed = JSON.parse(line!) as { logprobs: number[]; advantage: number };
    expect(parsed.logprobs.map(Math.fround)).toEqual(Array.from(logprobs));
    expect(line).toContain('"advantage":0.1}');
    expect(line!.length).toBeLessThan(logprobs.join(',').length);
  });

  it('leaves out row keys that are not columns and writes null for a missing nullable value', async () => {
    const columns: ColumnSpec[] = [
      { name: 'b', type: 'int32', description: '' },
      { name: 'a', type: 'string', nullable: true, description: '' },
    ];
    const lines = await writeJsonl(columns, [{ a: 'x', b: 1, extra: 'dropped' }, { b: 2 }]);
    expect(lines).toEqual(['{"b":1,"a":"x"}', '{"b":2,"a":null}']);
  });

  it('writes the JSON of toJson(row) when the format nests its rows, typed arrays inside as number arrays', async () => {
    const toJson = (row: ExportRow): unknown => ({
      model_input: { chunks: [{ type: 'encoded_text', tokens: row.input_ids }] },
      loss_fn_inputs: { weights: { data: row.logprobs, dtype: 'float32', shape: undefined } },
    });
    const row = allTypesRows()[0]!;
    const lines = await writeJsonl(ALL_TYPES, [row], { toJson });
    const parsed = JSON.parse(lines[0]!) as { loss_fn_inputs: { weights: { data: number[] } } };
    expect(parsed).toEqual({
      model_input: { chunks: [{ type: 'encoded_text', tokens: Array.from(row.input_ids as Int32Array) }] },
      loss_fn_inputs: { weights: { data: expect.any(Array), dtype: 'float32' } },
    });
    expect(parsed.loss_fn_inputs.weights.data.map(Math.fround)).toEqual(Array.from(row.logprobs as Float32Array));
  });

  it('refuses NaN with an error naming the row, the column and the index, and keeps nothing of that row', async () => {
    const columns: ColumnSpec[] = [
      { name: 'id', type: 'int32', description: '' },
      { name: 'logprobs', type: 'float32[]', description: '' },
    ];
    const writer = createRecordWriter({ path: folder.file('out.jsonl'), columns, metadata: {} });
    await writer.write({ id: 1, logprobs: Float32Array.of(-1) });
    let refusal: unknown;
    try {
      await writer.write({ id: 2, logprobs: Float32Array.of(-1, Number.NaN) });
    } catch (error) {
      refusal = error;
    }
    expect(isInvalidExportValue(refusal)).toBe(true);
    expect((refusal as Error).message).toBe('row 2, column logprobs[1]: NaN is not a finite number (JSON has no NaN or Infinity)');
    await writer.write({ id: 3, logprobs: Float32Array.of(-3) });
    await writer.close();
    expect(readFileSync(folder.file('out.jsonl'), 'utf8')).toBe('{"id":1,"logprobs":[-1]}\n{"id":3,"logprobs":[-3]}\n');
  });

  it.each([
    ['Infinity in a float64 column', { name: 'reward', type: 'float64' }, Number.POSITIVE_INFINITY, 'column reward: Infinity is not a finite number'],
    ['NaN deep in a json column', { name: 'info', type: 'json' }, { a: [1, { b: Number.NaN }] }, 'column info.a[1].b: NaN is not a finite number'],
    [
      '-Infinity in a number[] float32 column',
      { name: 'w', type: 'float32[]' },
      [1, Number.NEGATIVE_INFINITY],
      'column w[1]: -Infinity is not a finite number',
    ],
    [
      'null in a column that is not nullable',
      { name: 'uid', type: 'string' },
      null,
      'column uid: expected a value (the column is not nullable), got null',
    ],
    ['a float in an int32[] column', { name: 'ids', type: 'int32[]' }, [1, 2.5], 'column ids[1]: expected an int32, got number 2.5'],
    ['a uint8 out of range', { name: 'mask', type: 'uint8[]' }, [1, 256], 'column mask[1]: expected a uint8, got number 256'],
    ['a string in a bool column', { name: 'done', type: 'bool' }, 'yes', 'column done: expected a boolean, got string yes'],
  ])('refuses %s', async (_case, column, value, message) => {
    const writer = createRecordWriter({ path: folder.file('out.jsonl'), columns: [{ ...column, description: '' } as ColumnSpec], metadata: {} });
    expect(() => writer.write({ [column.name]: value })).toThrow(message);
    await writer.abort();
    expect(readdirSync(folder.path)).toEqual([]);
  });
});
