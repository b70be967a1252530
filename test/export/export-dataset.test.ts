import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportDataset } from '../../export/export-dataset.js';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { useExportFixture } from '../helpers/record-export-fixture.js';
import { readParquetWithDuckDb } from '../helpers/read-parquet-with-duckdb.js';
import { createHash } from 'node:crypto';

const recorded = useExportFixture();

describe('exportDataset', () => {
  it('stamps Parquet files with the schema version, tokentap version and the model folder tokenizer and template hashes', async () => {
    const out = join(recorded.fixture.dir, 'provenance.parquet');
    const result = await exportDataset(recorded.store, {
      format: 'slime',
      out,
      modelDir: qwen3TokenizerDir(),
      filters: { split: 'train' },
      advantage: { estimator: 'rloo' },
    });
    const tokenizerHash = `sha256:${createHash('sha256')
      .update(readFileSync(join(qwen3TokenizerDir(), 'tokenizer.json')))
      .digest('hex')}`;
    const { metadata, rows } = await readParquetWithDuckDb(out);
    expect(metadata).toMatchObject({
      schema_version: '1',
      tokenizer_hash: tokenizerHash,
      chat_template_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      format: 'slime',
      strategy: 'merge',
      // the estimator as it ran, defaults filled in (issue 14)
      advantage: '{"estimator":"rloo","dropZeroVarianceGroups":false}',
      filters: '{"split":"train"}',
    });
    expect(metadata.tokentap_version).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    expect(rows).toHaveLength(result.summary.samples);
    expect(result.summary.bytes).toBeGreaterThan(0);
  });

  it('says unknown for the hashes without a model folder, and refuses a folder without tokenizer.json', async () => {
    const result = await exportDataset(recorded.store, { format: 'jsonl', out: join(recorded.fixture.dir, 'plain.jsonl') });
    expect(result.provenance).toMatchObject({ tokenizer_hash: 'unknown', chat_template_hash: 'unknown' });
    await expect(
      exportDataset(recorded.store, { format: 'jsonl', out: join(recorded.fixture.dir, 'refused.jsonl'), modelDir: recorded.fixture.dir }),
    ).rejects.toThrow(/tokenizer\.json/);
    expect(existsSync(join(recorded.fixture.dir, 'refused.jsonl'))).toBe(false);
  });

  it('stops on its signal mid-export and leaves neither the dataset nor a temp file', async () => {
    const before = readdirSync(recorded.fixture.dir);
    const stop = new AbortController();
    const out = join(recorded.fixture.dir, 'stopped.parquet');
    // the first unit done: abort, as Ctrl-C in the CLI does
    const exporting = exportDataset(recorded.store, {
      format: 'verl',
      out,
      onProgress: () => stop.abort(new Error('interrupted')),
      signal: stop.signal,
    });
    await expect(exporting).rejects.toThrow('interrupted');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(recorded.fixture.dir)).toEqual(before);
  });
});
