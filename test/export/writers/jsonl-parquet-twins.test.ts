import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRecordWriter } from '../../../export/writers/record-writer.js';
import type { ExportRow } from '../../../trainer-adapters/trainer-adapter.js';
import { readParquetWithDuckDb } from '../../helpers/read-parquet-with-duckdb.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { ALL_TYPES, allTypesRows, arbitraryFloat32s } from './writer-fixtures.js';

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  folder = makeTempDir('tokentap-twins-');
});
afterEach(() => folder.remove());

async function write(path: string, rows: ExportRow[]): Promise<void> {
  const writer = createRecordWriter({ path, columns: ALL_TYPES, metadata: { format: 'test' }, rowGroupRows: 2 });
  for (const row of rows) await writer.write(row);
  await writer.close();
}

it('a JSONL file and a Parquet file written from the same rows hold the same values', async () => {
  const rows = [
    ...allTypesRows(),
    { ...allTypesRows()[0]!, logprobs: arbitraryFloat32s(5_000), input_ids: Int32Array.from({ length: 5_000 }, (_, index) => index * 37 - 90_000) },
  ];
  await write(folder.file('twin.jsonl'), rows);
  await write(folder.file('twin.parquet'), rows);
  const fromJsonl = readFileSync(folder.file('twin.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const fromParquet = (await readParquetWithDuckDb(folder.file('twin.parquet'))).rows;
  expect(fromJsonl).toHaveLength(rows.length);
  expect(fromParquet).toHaveLength(rows.length);
  fromJsonl.forEach((jsonRow, index) => {
    const parquetRow = fromParquet[index]!;
    for (const column of ALL_TYPES) {
      const jsonValue = jsonRow[column.name];
      const parquetValue = parquetRow[column.name];
      const where = `${column.name} of row ${index}`;
      // JSONL holds the shortest decimal of a float32, Parquet the float32 itself: equal as float32
      if (column.type === 'float32') expect(Math.fround(jsonValue as number), where).toBe(parquetValue);
      else if (column.type === 'float32[]') expect((jsonValue as number[]).map(Math.fround), where).toEqual(parquetValue);
      else if (column.type === 'json') expect(jsonValue, where).toEqual(parquetValue === null ? null : JSON.parse(parquetValue as string));
      else expect(jsonValue, where).toEqual(parquetValue);
    }
  });
});
