import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExportPathError } from '../../../export/writers/export-path-error.js';
import { createRecordWriter } from '../../../export/writers/record-writer.js';
import type { ColumnSpec } from '../../../trainer-adapters/trainer-adapter.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const COLUMNS: ColumnSpec[] = [{ name: 'ids', type: 'int32[]', description: '' }];
const ROW = { ids: Int32Array.of(1, 2, 3) };

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  folder = makeTempDir('tokentap-writer-');
});
afterEach(() => folder.remove());

function pathError(run: () => unknown): ExportPathError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ExportPathError);
    return error as ExportPathError;
  }
  throw new Error('expected an ExportPathError');
}

describe('createRecordWriter', () => {
  it('refuses an extension other than .jsonl or .parquet, naming both, before creating anything', () => {
    const error = pathError(() => createRecordWriter({ path: folder.file('out.csv'), columns: COLUMNS, metadata: {} }));
    expect(error.code).toBe('EXPORT_BAD_EXTENSION');
    expect(error.message).toContain('.jsonl or .parquet');
    expect(readdirSync(folder.path)).toEqual([]);
  });

  it('refuses a path whose folder does not exist', () => {
    const error = pathError(() => createRecordWriter({ path: folder.file('missing/out.jsonl'), columns: COLUMNS, metadata: {} }));
    expect(error.code).toBe('EXPORT_NO_PARENT_DIR');
    expect(error.message).toContain(folder.file('missing'));
  });

  it('names a folder that is a file as a file, not as missing (issue 14)', () => {
    writeFileSync(folder.file('README.md'), '# x\n');
    const error = pathError(() => createRecordWriter({ path: folder.file('README.md/out.jsonl'), columns: COLUMNS, metadata: {} }));
    expect(error.code).toBe('EXPORT_NO_PARENT_DIR');
    expect(error.message).toBe(`${folder.file('README.md/out.jsonl')}: ${folder.file('README.md')} is a file, not a folder`);
  });

  it('refuses a folder at the path, with force too, and a folder that takes no file, before writing (issue 14)', () => {
    mkdirSync(folder.file('out.jsonl'));
    for (const force of [false, true]) {
      const error = pathError(() => createRecordWriter({ path: folder.file('out.jsonl'), columns: COLUMNS, metadata: {}, force }));
      expect(error.code).toBe('EXPORT_PATH_NOT_WRITABLE');
      expect(error.message).toMatch(/out\.jsonl is a folder: give the dataset file's path/);
    }
    // /proc exists and is a folder, but creates no files (ENOENT), whoever runs the test, root included
    const proc = pathError(() => createRecordWriter({ path: '/proc/out.jsonl', columns: COLUMNS, metadata: {} }));
    expect(proc.code).toBe('EXPORT_PATH_NOT_WRITABLE');
    expect(proc.message).toBe('cannot write /proc/out.jsonl: this folder takes no new files in /proc');
    expect(readdirSync(folder.path)).toEqual(['out.jsonl']);
    expect(readdirSync(folder.file('out.jsonl'))).toEqual([]);
  });

  describe.each(['jsonl', 'parquet'])('%s', (extension) => {
    const name = `out.${extension}`;

    it('shows nothing at the path until close, then only the dataset (the temp file is gone)', async () => {
      const writer = createRecordWriter({ path: folder.file(name), columns: COLUMNS, metadata: {} });
      await writer.write(ROW);
      const during = readdirSync(folder.path);
      expect(during).toHaveLength(1);
      expect(during[0]).toMatch(new RegExp(`^\\.${name.replace('.', '\\.')}\\.tmp-${process.pid}-[0-9a-f]+$`));
      const result = await writer.close();
      expect(readdirSync(folder.path)).toEqual([name]);
      expect(result).toEqual({ path: folder.file(name), bytes: statSync(folder.file(name)).size, rows: 1 });
    });

    it('leaves no file and no temp file after abort', async () => {
      const writer = createRecordWriter({ path: folder.file(name), columns: COLUMNS, metadata: {} });
      await writer.write(ROW);
      await writer.abort();
      await writer.abort();
      expect(readdirSync(folder.path)).toEqual([]);
    });

    it('refuses a path that exists, leaving the file as it was', () => {
      writeFileSync(folder.file(name), 'precious');
      const error = pathError(() => createRecordWriter({ path: folder.file(name), columns: COLUMNS, metadata: {} }));
      expect(error.code).toBe('EXPORT_PATH_EXISTS');
      expect(error.message).toContain('already exists');
      expect(readFileSync(folder.file(name), 'utf8')).toBe('precious');
      expect(readdirSync(folder.path)).toEqual([name]);
    });

    it('refuses at close a file that appeared at the path while writing, and removes its temp file', async () => {
      const writer = createRecordWriter({ path: folder.file(name), columns: COLUMNS, metadata: {} });
      await writer.write(ROW);
      writeFileSync(folder.file(name), 'written meanwhile');
      const closing = writer.close();
      await expect(closing).rejects.toBeInstanceOf(ExportPathError);
      await expect(closing).rejects.toMatchObject({ code: 'EXPORT_PATH_EXISTS' });
      await writer.abort();
      expect(readFileSync(folder.file(name), 'utf8')).toBe('written meanwhile');
      expect(readdirSync(folder.path)).toEqual([name]);
    });

    it('replaces an existing file with force', async () => {
      writeFileSync(folder.file(name), 'old');
      const writer = createRecordWriter({ path: folder.file(name), columns: COLUMNS, metadata: {}, force: true });
      await writer.write(ROW);
      writeFileSync(folder.file(name), 'also old');
      const result = await writer.close();
      expect(readFileSync(folder.file(name)).subarray(0, 4).toString()).toBe(extension === 'jsonl' ? '{"id' : 'PAR1');
      expect(result.bytes).toBe(statSync(folder.file(name)).size);
      expect(readdirSync(folder.path)).toEqual([name]);
    });

    it('refuses writes after close', async () => {
      const writer = createRecordWriter({ path: folder.file(name), columns: COLUMNS, metadata: {} });
      await writer.close();
      expect(() => writer.write(ROW)).toThrow('write after close or abort');
    });
  });
});
