import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { runDemo } from '../../examples/demo.js';
import { runGrpoExample } from '../../examples/grpo-rollouts.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { readParquetWithDuckDb } from '../helpers/read-parquet-with-duckdb.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => temp?.remove());

describe('examples', () => {
  it('demo: the tool agent runs in a session from createSession, is rewarded, and its sample carries the reward', async () => {
    temp = makeTempDir();
    const lines: string[] = [];
    const result = await runDemo({ db: temp.file('demo.db'), exportPath: temp.file('demo.verl.parquet'), print: (line) => lines.push(line) });
    expect(result).toEqual({ reward: 1, calls: 3 });
    // token-faithful mode: the three turns merge into one verified sample despite Qwen3 dropping earlier <think>
    expect(lines.join('\n')).toMatch(/training sample 0: \d+ tokens, \d+ trained, 3 calls merged, reward 1, status completed, verified true/);
    expect(lines.join('\n')).not.toMatch(/training sample 1:/);
    // the export: one verl row, its prompt + response the merged sample, the reward on it
    const { rows } = await readParquetWithDuckDb(temp.file('demo.verl.parquet'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reward: 1, num_turns: 3 });
    expect((rows[0]!.response_mask as number[]).length).toBe((rows[0]!.response_ids as number[]).length);
    expect(existsSync(temp.file('demo.db'))).toBe(true);
  });

  it('grpo-rollouts: eight rollouts of one task form a complete group whose samples carry rewards and advantages', async () => {
    const lines: string[] = [];
    const scored = await runGrpoExample({ print: (line) => lines.push(line) });
    expect(lines[0]).toMatch(/^group step-0:add-17-25: 8 rollouts, complete true$/);
    expect(scored).toHaveLength(8);
    expect(scored.map(({ sample }) => sample.reward).sort()).toEqual([0, 0, 0, 1, 1, 1, 1, 1]);
    for (const { sample, advantage } of scored) {
      expect(sample).toMatchObject({ groupId: 'step-0:add-17-25', status: 'completed', rewardComponents: { correct: sample.reward } });
      expect(sample.callIds).toHaveLength(2);
      expect(Math.sign(advantage)).toBe(sample.reward === 1 ? 1 : -1);
      expect(new Set(sample.policyVersions)).toEqual(new Set([null, 'step-0']));
    }
    expect(lines.slice(1).every((line) => /reward +[01] +advantage [+-]\d\.\d{3}/.test(line))).toBe(true);
  });
});
