import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../store/index.js';
import { useExportFixture } from '../helpers/record-export-fixture.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// seven rollouts recorded through the gateway and the simulator: task-a (rewards 1, 0, 1), task-b (0.5, 0.5),
// one ungrouped (0.25) and one that failed without a reward
const recorded = useExportFixture();

function listedIds(stdout: string): string[] {
  return stdout
    .trim()
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes('more session'))
    .map((line) => line.split(/\s+/)[0] as string);
}

// issue 14: `sessions` showed no reward, group or rollout status, took no filter and stopped silently at 100 rows
describe('tokentap sessions', () => {
  it("shows each session's rollout status, group and reward beside its calls and tokens", () => {
    const result = runCli(['sessions', '--db', recorded.fixture.dbPath]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(
      /^session\s+calls\s+prompt_tokens\s+completion_tokens\s+call_status\s+rollout\s+group\s+reward\s+last_call$/,
    );
    const failed = recorded.fixture.rollouts.find((rollout) => rollout.status === 'failed')!;
    const rewarded = recorded.fixture.rollouts.find((rollout) => rollout.groupId === 'task-b')!;
    expect(result.stdout).toMatch(new RegExp(`\\n${failed.sessionId}\\s+2\\s+\\d+\\s+\\d+\\s+ok:2\\s+failed\\s+-\\s+-\\s+\\d{4}-`));
    expect(result.stdout).toMatch(new RegExp(`\\n${rewarded.sessionId}\\s+2\\s+\\d+\\s+\\d+\\s+ok:2\\s+completed\\s+task-b\\s+0\\.5\\s+\\d{4}-`));
    expect(result.stdout).not.toContain('more session');
  });

  it('filters by group, status, reward and model', () => {
    const ids = (...flags: string[]): string[] => {
      const result = runCli(['sessions', '--db', recorded.fixture.dbPath, ...flags]);
      expect(result.status, result.stderr).toBe(0);
      return listedIds(result.stdout).sort();
    };
    const of = (keep: (rollout: (typeof recorded.fixture.rollouts)[number]) => boolean): string[] =>
      recorded.fixture.rollouts
        .filter(keep)
        .map((rollout) => rollout.sessionId)
        .sort();
    expect(ids('--group', 'task-a')).toEqual(of((rollout) => rollout.groupId === 'task-a'));
    expect(ids('--status', 'failed')).toEqual(of((rollout) => rollout.status === 'failed'));
    expect(ids('--has-reward')).toEqual(of((rollout) => rollout.reward !== null));
    expect(ids('--min-reward', '0.5')).toEqual(of((rollout) => rollout.reward !== null && rollout.reward >= 0.5));
    expect(ids('--group', 'task-a', '--max-reward', '0')).toEqual(of((rollout) => rollout.groupId === 'task-a' && rollout.reward === 0));
    expect(ids('--model', 'Qwen/Qwen3-8B', '--front-door', 'openai-chat')).toEqual(of(() => true));
    expect(ids('--front-door', 'anthropic-messages')).toEqual([]);
    expect(ids('--until', '2000-01-01')).toEqual([]);
  });

  it('says how many more sessions match beyond --limit, on stderr with --json (whose lines gain the new fields)', () => {
    const result = runCli(['sessions', '--db', recorded.fixture.dbPath, '--limit', '2']);
    expect(result.status, result.stderr).toBe(0);
    expect(listedIds(result.stdout)).toHaveLength(2);
    expect(result.stdout).toMatch(/\n5 more sessions \(use --limit or a filter\)\n$/);
    const json = runCli(['sessions', '--db', recorded.fixture.dbPath, '--group', 'task-a', '--limit', '2', '--json']);
    expect(json.stderr).toBe('1 more session (use --limit or a filter)\n');
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toMatchObject({
        id: expect.any(String),
        callCount: expect.any(Number),
        statusCounts: { ok: expect.any(Number) },
        status: 'completed',
        origin: 'api',
        groupId: 'task-a',
        reward: expect.any(Number),
      });
    }
  });

  it('lists 100 sessions by default and says how many more there are', () => {
    const temp = makeTempDir();
    try {
      const db = temp.file('many.db');
      const store = openStore({ path: db });
      for (let index = 0; index < 103; index++) store.ensureSession(`s-${index}`);
      store.close();
      const result = runCli(['sessions', '--db', db]);
      expect(result.status, result.stderr).toBe(0);
      expect(listedIds(result.stdout)).toHaveLength(100);
      expect(result.stdout).toMatch(/\n3 more sessions \(use --limit or a filter\)\n$/);
    } finally {
      temp.remove();
    }
  });

  it('refuses a filter value it cannot read (exit 2, one line naming the flag)', () => {
    expect(runCli(['sessions', '--db', recorded.fixture.dbPath, '--status', 'done'])).toMatchObject({
      status: 2,
      stderr: 'tokentap: --status must be one of open, completed, truncated, failed, aborted (got "done")\n',
    });
    expect(runCli(['sessions', '--db', recorded.fixture.dbPath, '--min-reward', 'high'])).toMatchObject({
      status: 2,
      stderr: 'tokentap: --min-reward must be a number (got "high")\n',
    });
    expect(runCli(['sessions', '--db', recorded.fixture.dbPath, '--since', 'yesterday'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--since must be an ISO 8601 date'),
    });
  });
});
