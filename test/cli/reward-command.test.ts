import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openStore, type RewardRow } from '../../store/index.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

/** The built CLI (npm test builds first, as the installed `tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// a fixture of this file's own: `tokentap reward` writes to it
let fixture: ExportFixture;
beforeAll(async () => {
  fixture = await recordExportFixture();
}, 60_000);
afterAll(() => fixture?.remove());

const db = (): string[] => ['--db', fixture.dbPath];
const sessionOf = (index: number): string => fixture.rollouts[index]!.sessionId;
const FAILED = 6;

function rewardHistory(sessionId: string): RewardRow[] {
  const store = openStore({ path: fixture.dbPath, readonly: true });
  try {
    return store.listRewards(sessionId, { history: true });
  } finally {
    store.close();
  }
}

describe('tokentap reward SESSION VALUE (issue 14)', () => {
  it('stores a reward with its components through the store (source cli); the next one replaces it', () => {
    const failed = sessionOf(FAILED);
    const first = runCli(['reward', failed, '0.75', '--component', 'correct=0.5', '--component', 'style=0.25', ...db()]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(`reward 0.75 (correct 0.5, style 0.25) stored for session ${failed}\n`);
    const second = runCli(['reward', failed, '-1', ...db()]);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(`reward -1 stored for session ${failed}, replacing 0.75\n`);
    expect(rewardHistory(failed).map((row) => [row.value, row.components, row.source])).toEqual([
      [0.75, { correct: 0.5, style: 0.25 }, 'cli'],
      [-1, null, 'cli'],
    ]);
    // components alone: the reward is their sum, as in the rollout API
    const summed = runCli(['reward', failed, '--component', 'a=1', '--component', 'b=2', ...db()]);
    expect(summed.stdout).toBe(`reward 3 (a 1, b 2) stored for session ${failed}, replacing -1\n`);
  });

  it('refuses what the rollout API refuses, an unknown session and a missing database: exit 2, one line, nothing stored', () => {
    const session = sessionOf(0);
    const before = rewardHistory(session).length;
    const cases: Array<[string[], string]> = [
      [['reward', session, '1e999', ...db()], 'tokentap: invalid reward: VALUE is Infinity, not a finite number within ±1e+30\n'],
      [
        ['reward', session, '--component', 'a=1e30', '--component', 'b=1e30', ...db()],
        'tokentap: invalid reward: components sum to 2e+30, not a finite number within ±1e+30\n',
      ],
      [['reward', session, 'high', ...db()], 'tokentap: VALUE "high" is not a number\n'],
      [['reward', session, '1', '--component', 'correct', ...db()], 'tokentap: --component "correct": give NAME=X, e.g. --component correct=1\n'],
      [['reward', 'no-such-session', '1', ...db()], `tokentap: no session "no-such-session" in ${fixture.dbPath} (tokentap sessions lists them)\n`],
      [['reward', session, ...db()], 'tokentap: give the reward: tokentap reward SESSION VALUE, or --component NAME=X\n'],
    ];
    for (const [args, line] of cases) {
      const result = runCli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toBe(line);
    }
    const missing = `${fixture.dir}/missing.db`;
    expect(runCli(['reward', session, '1', '--db', missing]).stderr).toBe(`tokentap: no database at ${missing} (give --db FILE)\n`);
    expect(existsSync(missing)).toBe(false);
    expect(rewardHistory(session)).toHaveLength(before);
  });
});

describe('tokentap export --rewards FILE (issue 14)', () => {
  it("uses the file's session rewards for this export only: advantages from them, the database unchanged", () => {
    const [first, second] = [sessionOf(3), sessionOf(4)];
    const file = `${fixture.dir}/rewards.jsonl`;
    writeFileSync(file, `${JSON.stringify({ session: first, reward: 1 })}\n\n${JSON.stringify({ session: second, components: { correct: 0 } })}\n`);
    const out = `${fixture.dir}/overridden.jsonl`;
    const result = runCli(['export', ...db(), '--format', 'verl', '--out', out, '--groups', 'task-b', '--rewards', file]);
    expect(result.status, result.stderr).toBe(0);
    // task-b was 0.5 and 0.5 (zero variance); with the file's 1 and 0 it has a signal
    expect(result.stdout).toContain('zero-variance groups: none');
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { session_id: string; reward: number; advantage: number });
    expect(rows.map((row) => [row.session_id, row.reward, Math.sign(row.advantage)])).toEqual([
      [first, 1, 1],
      [second, 0, -1],
    ]);
    expect(rewardHistory(first).map((row) => row.value)).toEqual([0.5]);
    const stats = runCli(['stats', ...db(), '--groups', 'task-b', '--rewards', file, '--json']);
    expect((JSON.parse(stats.stdout) as { rewards: { min: number; max: number } }).rewards).toMatchObject({ min: 0, max: 1 });
  });

  it('names every line that cannot be used with its line number, exits 2 and writes nothing', () => {
    const file = `${fixture.dir}/bad-rewards.jsonl`;
    const session = sessionOf(0);
    writeFileSync(
      file,
      [
        JSON.stringify({ session, reward: 1 }),
        JSON.stringify({ session: 'no-such-session', reward: 1 }),
        `{"session": ${JSON.stringify(sessionOf(1))}, "reward": 1e999}`,
        'not json',
        JSON.stringify({ session, reward: 0 }),
        JSON.stringify({ session: sessionOf(3), rewards: 1 }),
      ].join('\n') + '\n',
    );
    const out = `${fixture.dir}/never.jsonl`;
    const result = runCli(['export', ...db(), '--format', 'verl', '--out', out, '--rewards', file]);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')).toEqual([
      `tokentap: --rewards ${file}: 5 lines cannot be used, nothing was written`,
      `  ${file}:2: no session "no-such-session" in the database`,
      `  ${file}:3: reward is Infinity, not a finite number within ±1e+30`,
      `  ${file}:4: not a JSON object`,
      `  ${file}:5: session ${JSON.stringify(session)} is already given on line 1`,
      `  ${file}:6: unknown key "rewards" (a line holds "session", "reward" and "components")`,
      '',
    ]);
    expect(existsSync(out)).toBe(false);
  });
});
