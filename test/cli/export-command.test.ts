import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { verifySample } from '../../reconstruct/index.js';
import { exportSamples } from '../../export/export-samples.js';
import { TRAINER_FORMATS } from '../../trainer-adapters/index.js';
import { createProgressBar } from '../../cli/progress-bar.js';
import { useExportFixture } from '../helpers/record-export-fixture.js';
import { readParquetWithDuckDb } from '../helpers/read-parquet-with-duckdb.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const recorded = useExportFixture();

describe('tokentap export', () => {
  it('writes every format as JSONL and as Parquet, the two files holding the same rows, every sample verified', async () => {
    for (const entry of TRAINER_FORMATS) {
      for (const shape of entry.shapes ?? [undefined]) {
        const name = `${entry.format}${shape === undefined ? '' : `-${shape}`}`;
        const shapeArgs = shape === undefined ? [] : ['--shape', shape];
        const jsonl = runCli([
          'export',
          '--db',
          recorded.fixture.dbPath,
          '--format',
          entry.format,
          ...shapeArgs,
          '--out',
          `${recorded.fixture.dir}/${name}.jsonl`,
        ]);
        expect(jsonl.status, `${name}: ${jsonl.stderr}`).toBe(0);
        const parquet = runCli([
          'export',
          '--db',
          recorded.fixture.dbPath,
          '--format',
          entry.format,
          ...shapeArgs,
          '--out',
          `${recorded.fixture.dir}/${name}.parquet`,
        ]);
        expect(parquet.status, `${name}: ${parquet.stderr}`).toBe(0);
        const lines = readFileSync(`${recorded.fixture.dir}/${name}.jsonl`, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        const read = await readParquetWithDuckDb(`${recorded.fixture.dir}/${name}.parquet`);
        expect(read.rows.length, name).toBe(lines.length);
        expect(lines.length, name).toBeGreaterThan(0);
        expect(read.metadata).toMatchObject({ format: entry.format, schema_version: '1', tokentap_version: expect.any(String) });
        // Tinker's JSONL lines are Datums (nested); its Parquet rows are the flat columns
        if (entry.format !== 'tinker')
          for (const [index, line] of lines.entries()) expect(sameValues(read.rows[index]!, line), `${name} row ${index}`).toBe(true);
      }
    }
    // the samples those files hold, each checked against the raw call rows by the independent verifier
    for (const exported of exportSamples(recorded.store, {})) {
      expect(verifySample(exported.sample, recorded.store.listCalls(exported.sample.sessionId))).toEqual({ ok: true });
    }
  }, 180_000);

  it('prints a summary with what was dropped and why', () => {
    const result = runCli([
      'export',
      '--db',
      recorded.fixture.dbPath,
      '--format',
      'verl',
      '--out',
      `${recorded.fixture.dir}/summary.jsonl`,
      '--split',
      'train',
      '--drop-zero-variance',
    ]);
    expect(result.status, result.stderr).toBe(0);
    // task-a: 3 rollouts -> 4 samples; task-b (rewards 0.5, 0.5) dropped as zero-variance; the val and failed rollouts are filtered out
    expect(result.stdout).toMatch(/sessions \d+, groups 1, samples 4/);
    expect(result.stdout).toMatch(/dropped: .*zero_variance_group 2/);
    expect(readFileSync(`${recorded.fixture.dir}/summary.jsonl`, 'utf8').trim().split('\n')).toHaveLength(4);
  });

  it('refuses to overwrite without --force (exit 2, file untouched) and replaces it with --force', () => {
    const out = `${recorded.fixture.dir}/existing.jsonl`;
    writeFileSync(out, 'keep me\n');
    const refused = runCli(['export', '--db', recorded.fixture.dbPath, '--format', 'jsonl', '--out', out]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(out, 'utf8')).toBe('keep me\n');
    expect(runCli(['export', '--db', recorded.fixture.dbPath, '--format', 'jsonl', '--out', out, '--force']).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('"session_id"');
  });

  it('exits 2 with a clear message on a bad format, shape, extension, filter or database, leaving no file behind', () => {
    const before = readdirSync(recorded.fixture.dir).length;
    const cases: Array<[string[], RegExp]> = [
      [['--format', 'nope', '--out', `${recorded.fixture.dir}/a.jsonl`], /nope/],
      [['--format', 'skyrl', '--shape', 'nope', '--out', `${recorded.fixture.dir}/a.jsonl`], /shape/],
      [['--format', 'verl', '--out', `${recorded.fixture.dir}/a.csv`], /\.jsonl|\.parquet/],
      [['--format', 'verl', '--out', `${recorded.fixture.dir}/a.jsonl`, '--reward-min', 'high'], /--reward-min "high": expected a number/],
      [['--format', 'verl', '--out', `${recorded.fixture.dir}/a.jsonl`, '--advantage', 'ppo'], /--advantage "ppo": Invalid option/],
      [['--format', 'verl', '--out', `${recorded.fixture.dir}/no-such-dir/a.jsonl`], /no-such-dir|director/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(['export', '--db', recorded.fixture.dbPath, ...args]);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    expect(
      runCli(['export', '--db', `${recorded.fixture.dir}/missing.db`, '--format', 'verl', '--out', `${recorded.fixture.dir}/a.jsonl`]).status,
    ).toBe(2);
    expect(readdirSync(recorded.fixture.dir).length).toBe(before);
    expect(existsSync(`${recorded.fixture.dir}/a.jsonl`)).toBe(false);
  });

  it('prints the dataset shape with tokentap stats, with the same selection flags', () => {
    const result = runCli(['stats', '--db', recorded.fixture.dbPath, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const stats = JSON.parse(result.stdout) as {
      summary: { samples: number; dropped: Record<string, number>; drift: Record<string, number> };
      rollouts: number;
    };
    // 7 rollouts, 8 samples; the failed rollout's sample is dropped by the default status filter
    expect(stats.summary.samples).toBe(7);
    expect(stats.rollouts).toBe(6);
    expect(stats.summary.dropped).toMatchObject({ status_failed: 1 });
    expect(Object.values(stats.summary.drift).reduce((sum, count) => sum + count, 0)).toBe(1);
    const text = runCli(['stats', '--db', recorded.fixture.dbPath, '--split', 'val']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/samples 1\b/);
  });
});

describe('the progress bar', () => {
  it('draws on a TTY and stays silent when output is piped', () => {
    const drawn: string[] = [];
    const bar = createProgressBar({ isTTY: true, columns: 100, write: (text) => drawn.push(text) }, 'sessions', 0);
    bar.update(5, 10);
    bar.update(10, 10);
    bar.finish();
    expect(drawn[0]).toMatch(/50% 5\/10 sessions/);
    expect(drawn[1]).toMatch(/100% 10\/10 sessions/);
    expect(drawn.at(-1)).toBe('\r\x1b[K');
    const piped: string[] = [];
    const silent = createProgressBar({ isTTY: false, write: (text) => piped.push(text) }, 'sessions', 0);
    silent.update(1, 2);
    silent.finish();
    expect(piped).toEqual([]);
  });
});

/**
 * A DuckDB row equals a JSONL row: lists element by element, JSON columns parsed, float32 values exact (JSONL holds
 * the shortest decimal of each float32, DuckDB its widened double: equal once both are rounded to float32).
 */
function sameValues(parquetRow: Record<string, unknown>, jsonRow: Record<string, unknown>): boolean {
  const keys = Object.keys(jsonRow);
  if (keys.join() !== Object.keys(parquetRow).join()) return false;
  return keys.every((key) => {
    const fromParquet = parquetRow[key];
    const fromJson = jsonRow[key];
    const parsed = typeof fromParquet === 'string' && typeof fromJson === 'object' && fromJson !== null ? JSON.parse(fromParquet) : fromParquet;
    return JSON.stringify(parsed, asFloat32) === JSON.stringify(fromJson, asFloat32);
  });
}

function asFloat32(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Math.fround(value) : value;
}
