import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runExport } from '../../cli/commands/export.js';
import { reportFailure } from '../../cli/report-failure.js';
import { openStore } from '../../store/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// a bug deep inside the export: the kind of TypeError the CLI used to report as a usage mistake (exit 2)
const bug = new TypeError("Cannot read properties of undefined (reading 'promptTokenIds')");
vi.mock('../../export/export-dataset.js', () => ({
  exportDataset: async () => {
    throw bug;
  },
}));

let folder: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  folder = makeTempDir('tokentap-export-bug-');
  openStore({ path: folder.file('t.db') }).close();
});
afterEach(() => folder.remove());

describe('tokentap export on a bug', () => {
  it('lets the TypeError through as it is, so the CLI prints its stack and does not exit 2', async () => {
    const run = runExport(['--db', folder.file('t.db'), '--format', 'verl', '--out', folder.file('a.jsonl'), '--quiet'], {});
    const error = await run.then(
      () => 'no error',
      (failure: unknown) => failure,
    );
    expect(error).toBe(bug);
    expect(reportFailure(error, { write: () => true })).toBe(1);
  });
});
