import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { poisonRewards, setRawRewardValue } from '../helpers/poison-rewards.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';
import { readParquetWithDuckDb } from '../helpers/read-parquet-with-duckdb.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// The export fixture (7 samples exported by default) after the attack of issue 12 landed in an older store: one
// task-a rollout's reward is Infinity (components 1.7e308 + 1.7e308); another holds a component written as 1e999.
let fixture: ExportFixture;
beforeAll(async () => {
  fixture = await recordExportFixture();
  const taskA = fixture.rollouts.filter((rollout) => rollout.groupId === 'task-a');
  setRawRewardValue(fixture.dbPath, taskA[0]!.sessionId, Infinity);
  poisonRewards(fixture.dbPath, [{ sessionId: taskA[1]!.sessionId, value: 0, componentsJson: '{"correct":1e999}' }]);
}, 60_000);
afterAll(() => fixture?.remove());

describe('tokentap export and stats on a database holding non-finite rewards', () => {
  it('export writes every other sample (JSONL and Parquet) and reports the two rollouts dropped as invalid_reward', async () => {
    const jsonl = runCli(['export', '--db', fixture.dbPath, '--format', 'verl', '--out', `${fixture.dir}/verl.jsonl`]);
    expect(jsonl.status, jsonl.stderr).toBe(0);
    expect(jsonl.stdout).toMatch(/samples 5\b/);
    expect(jsonl.stdout).toMatch(/dropped: .*invalid_reward 2/);
    const rows = readFileSync(`${fixture.dir}/verl.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reward: unknown; advantage: unknown });
    expect(rows).toHaveLength(5);
    for (const row of rows) expect([typeof row.reward, typeof row.advantage]).toEqual(['number', 'number']);
    const parquet = runCli(['export', '--db', fixture.dbPath, '--format', 'jsonl', '--out', `${fixture.dir}/generic.parquet`]);
    expect(parquet.status, parquet.stderr).toBe(0);
    expect(parquet.stdout).toMatch(/dropped: .*invalid_reward 2/);
    expect((await readParquetWithDuckDb(`${fixture.dir}/generic.parquet`)).rows).toHaveLength(5);
  }, 60_000);

  it('stats prints, counting the two rollouts as invalid_reward, as text and as JSON', () => {
    const text = runCli(['stats', '--db', fixture.dbPath]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^samples 5 /m);
    expect(text.stdout).toMatch(/dropped: .*invalid_reward 2/);
    // the rewards of what is exported: task-a's third rollout (1), task-b (0.5, 0.5) and the val rollout (0.25)
    expect(text.stdout).toMatch(/rewards \(4 rollouts, 0 without\): min 0\.25 {2}mean 0\.5625 {2}max 1\b/);
    const json = runCli(['stats', '--db', fixture.dbPath, '--json']);
    expect(json.status, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { summary: { dropped: Record<string, number> } }).summary.dropped).toEqual({
      invalid_reward: 2,
      status_failed: 1,
    });
  });
});
