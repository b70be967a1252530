import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useExportFixture } from '../helpers/record-export-fixture.js';
import { readParquetWithDuckDb } from '../helpers/read-parquet-with-duckdb.js';

/** The built CLI (npm test builds first, as the installed `tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// 7 rollouts: task-a (3, train, rewards 1 0 1; the third breaks at template-rerender), task-b (2, train, 0.5 0.5),
// one val rollout in no group (0.25) and one failed rollout in no group, no split and no reward
const recorded = useExportFixture();
const db = (): string[] => ['--db', recorded.fixture.dbPath];
const out = (name: string): string => `${recorded.fixture.dir}/${name}`;
const sessionOf = (index: number): string => recorded.fixture.rollouts[index]!.sessionId;
const FAILED = 6;

describe('an export or stats that yields 0 samples (issue 14)', () => {
  it('warns naming the filter that emptied it, counts the rollouts it left out, and exits 1 with --fail-on-empty, writing nothing', () => {
    const plain = runCli(['export', ...db(), '--format', 'verl', '--out', out('test-split.jsonl'), '--split', 'test']);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('dropped: filter_split 7');
    expect(plain.stderr).toContain('tokentap: warning: 0 samples: --split test matched none of the 7 rollouts (sessions per split: train 5, val 1)');
    const failing = runCli(['export', ...db(), '--format', 'verl', '--out', out('test-split.parquet'), '--split', 'test', '--fail-on-empty']);
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain('tokentap: warning: 0 samples: --split test matched none of the 7 rollouts');
    expect(failing.stderr).toContain(`tokentap: --fail-on-empty: nothing was written to ${out('test-split.parquet')}`);
    expect(existsSync(out('test-split.parquet'))).toBe(false);
  });

  it('stats counts every rollout a filter leaves out and fails on an empty selection with --fail-on-empty', () => {
    const val = runCli(['stats', ...db(), '--split', 'val', '--json']);
    expect(val.status, val.stderr).toBe(0);
    expect((JSON.parse(val.stdout) as { summary: { dropped: Record<string, number> } }).summary.dropped).toEqual({ filter_split: 6 });
    const tags = runCli(['stats', ...db(), '--tags', 'math,nope', '--fail-on-empty']);
    expect(tags.status).toBe(1);
    expect(tags.stdout).toMatch(/^samples 0 /m);
    expect(tags.stderr).toContain('tokentap: warning: 0 samples: --tags math,nope matched none of the 7 rollouts');
    // the reward range is checked per rollout, after the store's filters: counted all the same
    const reward = runCli(['stats', ...db(), '--reward-min', '2']);
    expect(reward.status).toBe(0);
    expect(reward.stdout).toContain('dropped: filter_reward_min 7');
    expect(reward.stderr).toContain('0 samples: --reward-min 2 matched none of the 7 rollouts (a rollout without a reward fails it;');
  });

  it('names the sample drop that took every sample of the selected rollouts, with the flag to change', () => {
    const result = runCli(['export', ...db(), '--format', 'jsonl', '--out', out('failed-only.jsonl'), '--sessions', sessionOf(FAILED)]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('dropped: filter_sessions 6, status_failed 1');
    expect(result.stderr).toContain(
      'tokentap: warning: 0 samples: every sample of the 1 selected rollout was dropped (status_failed 1): --status keeps completed,truncated; list the statuses to export',
    );
  });
});

describe('hints where a hint helps (issue 14)', () => {
  it('a format that needs rewards, on a rollout without one, says how to add rewards', () => {
    const result = runCli([
      'export',
      ...db(),
      '--format',
      'verl',
      '--out',
      out('no-reward.jsonl'),
      '--sessions',
      sessionOf(FAILED),
      '--status',
      'failed',
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'tokentap: hint: 1 sample dropped as no_reward: --format verl needs a reward per rollout; add them with the rollout API (POST /tokentap/v1/sessions/{id}/reward), `tokentap reward SESSION VALUE`, or for one export `--rewards FILE`',
    );
  });

  it('rollouts that all broke at template-rerender point to --token-faithful on serve', () => {
    const result = runCli(['export', ...db(), '--format', 'jsonl', '--out', out('rerender.jsonl'), '--sessions', sessionOf(2)]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('chain breaks: template-rerender 1');
    expect(result.stderr).toContain(
      "tokentap: hint: 1 rollout broke at template-rerender (the chat template re-rendered earlier turns), so a trajectory exports as several samples: record with `tokentap serve --token-faithful '*'`",
    );
    expect(result.stderr).toContain('docs/token-faithful.md');
    // no hint where nothing broke
    expect(runCli(['export', ...db(), '--format', 'jsonl', '--out', out('whole.jsonl'), '--sessions', sessionOf(0)]).stderr).not.toContain('hint:');
  });

  it('reports the groups whose rewards are all equal, in the export summary and in stats, pointing to --drop-zero-variance', () => {
    // task-b (0.5, 0.5) and the val rollout, a rewarded group of one: advantage 0 for all their samples
    const exported = runCli(['export', ...db(), '--format', 'verl', '--out', out('zero-variance.jsonl')]);
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('zero-variance groups: 2 (all rewards equal, advantage 0: --drop-zero-variance leaves them out)');
    const dropped = runCli(['export', ...db(), '--format', 'verl', '--out', out('zero-variance-dropped.jsonl'), '--drop-zero-variance']);
    expect(dropped.stdout).toContain('zero-variance groups: 2 (left out by --drop-zero-variance)');
    const stats = runCli(['stats', ...db(), '--json']);
    expect((JSON.parse(stats.stdout) as { summary: { zeroVarianceGroups: number } }).summary.zeroVarianceGroups).toBe(2);
    expect(runCli(['stats', ...db()]).stdout).toContain('zero-variance groups: 2 (all rewards equal');
  });
});

describe('Parquet metadata (issue 14)', () => {
  it('records the advantage estimator the export used with its parameters, the defaults written out', async () => {
    const defaults = runCli(['export', ...db(), '--format', 'verl', '--out', out('default-advantage.parquet')]);
    expect(defaults.status, defaults.stderr).toBe(0);
    const { metadata } = await readParquetWithDuckDb(out('default-advantage.parquet'));
    expect(JSON.parse(metadata.advantage ?? 'null')).toEqual({ estimator: 'grpo', normalizeStd: true, epsilon: 1e-6, dropZeroVarianceGroups: false });
    const rloo = runCli(['export', ...db(), '--format', 'verl', '--out', out('rloo.parquet'), '--advantage', 'rloo', '--drop-zero-variance']);
    expect(rloo.status, rloo.stderr).toBe(0);
    expect(JSON.parse((await readParquetWithDuckDb(out('rloo.parquet'))).metadata.advantage ?? 'null')).toEqual({
      estimator: 'rloo',
      dropZeroVarianceGroups: true,
    });
    const unnormalized = runCli(['export', ...db(), '--format', 'verl', '--out', out('no-std.parquet'), '--no-std-norm']);
    expect(unnormalized.status, unnormalized.stderr).toBe(0);
    expect(JSON.parse((await readParquetWithDuckDb(out('no-std.parquet'))).metadata.advantage ?? 'null')).toEqual({
      estimator: 'grpo',
      normalizeStd: false,
      dropZeroVarianceGroups: false,
    });
  }, 60_000);
});
