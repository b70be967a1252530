import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordRawCall } from '../reconstruct/record-raw-call.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir('tokentap-store-path-');
});
afterEach(() => temp.remove());

/** Runs the CLI in the temp folder (so ./tokentap.db, the default, is not there) with only PATH and `env`. */
function runCli(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: temp.path, encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A database holding one recorded session `sessionId`, and a config file naming it as its `db`. */
function recordedDatabase(name: string, sessionId: string): { db: string; config: string } {
  const db = temp.file(`${name}.db`);
  const store = openStore({ path: db });
  recordRawCall(store, sessionId, { prompt: [1, 2, 3], completion: [4, 5] });
  store.close();
  const config = temp.file(`${name}.json`);
  writeFileSync(config, JSON.stringify({ backendUrl: 'http://127.0.0.1:8000', db }));
  return { db, config };
}

/** Each command that opens a database, with what its output shows of the session `run-1`. */
const COMMANDS: Array<{ args: string[]; expectOutput: (stdout: string) => void }> = [
  { args: ['sessions'], expectOutput: (stdout) => expect(stdout).toMatch(/run-1\s+1\s+3\s+2\s+ok:1/) },
  { args: ['show', 'run-1'], expectOutput: (stdout) => expect(stdout).toContain('openai-chat') },
  { args: ['diagnose', 'run-1', '--json'], expectOutput: (stdout) => expect((JSON.parse(stdout) as { samples: unknown[] }).samples).toHaveLength(1) },
  {
    args: ['stats', '--json'],
    expectOutput: (stdout) => expect(JSON.parse(stdout)).toMatchObject({ summary: { sessions: 1, samples: 1, tokens: 5 } }),
  },
  {
    args: ['export', '--format', 'jsonl', '--out', 'out.jsonl', '--quiet'],
    expectOutput: () =>
      expect(JSON.parse(readFileSync(temp.file('out.jsonl'), 'utf8'))).toMatchObject({ session_id: 'run-1', tokens: [1, 2, 3, 4, 5] }),
  },
];

describe('every command finds its database by --db, TOKENTAP_DB, --config or TOKENTAP_CONFIG', () => {
  it('reads the db of a config file given by --config', () => {
    const { config } = recordedDatabase('a', 'run-1');
    for (const { args, expectOutput } of COMMANDS) {
      const result = runCli([...args, '--config', config]);
      expect(result, args.join(' ')).toMatchObject({ status: 0, stderr: '' });
      expectOutput(result.stdout);
    }
  });

  it('reads the db of a YAML config file (the fleet file tokentap serve reads)', () => {
    const { db } = recordedDatabase('a', 'run-1');
    const config = temp.file('fleet.yaml');
    writeFileSync(config, `backends:\n  - vllm=http://10.0.0.1:8000\ndb: ${JSON.stringify(db)}\n`);
    const result = runCli(['sessions', '--config', config]);
    expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
    COMMANDS[0]!.expectOutput(result.stdout);
  });

  it('reads the db of a config file given by TOKENTAP_CONFIG', () => {
    const { config } = recordedDatabase('a', 'run-1');
    for (const { args, expectOutput } of COMMANDS) {
      const result = runCli(args, { TOKENTAP_CONFIG: config });
      expect(result, args.join(' ')).toMatchObject({ status: 0, stderr: '' });
      expectOutput(result.stdout);
    }
  });

  it('takes --db over TOKENTAP_DB over the config file, and --config over TOKENTAP_CONFIG', () => {
    const fromFlag = recordedDatabase('flag', 'from-flag');
    const fromEnv = recordedDatabase('env', 'from-env');
    const fromFile = recordedDatabase('file', 'from-file');
    const other = recordedDatabase('other', 'from-other-file');
    const sessionsOf = (args: string[], env: NodeJS.ProcessEnv): string => {
      const result = runCli(['sessions', '--json', ...args], env);
      expect(result.status, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { id: string }).id;
    };
    expect(sessionsOf(['--db', fromFlag.db, '--config', fromFile.config], { TOKENTAP_DB: fromEnv.db })).toBe('from-flag');
    expect(sessionsOf(['--config', fromFile.config], { TOKENTAP_DB: fromEnv.db })).toBe('from-env');
    expect(sessionsOf(['--config', fromFile.config], { TOKENTAP_CONFIG: other.config })).toBe('from-file');
    expect(sessionsOf([], { TOKENTAP_CONFIG: other.config })).toBe('from-other-file');
    expect(runCli(['migrate', '--config', fromFile.config])).toMatchObject({ status: 0, stdout: expect.stringContaining(fromFile.db) });
  });

  it('refuses a config file it cannot read in one line, with exit code 2', () => {
    for (const { args } of COMMANDS) {
      const result = runCli([...args, '--config', temp.file('missing.json')]);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^tokentap: cannot read config file .*missing\.json.*\n$/);
      expect(result.stderr.split('\n')).toHaveLength(2);
    }
    writeFileSync(temp.file('bad-db.json'), JSON.stringify({ db: 42 }));
    expect(runCli(['sessions', '--config', temp.file('bad-db.json')])).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^tokentap: invalid "db" in .*bad-db\.json: [^\n]+\n$/),
    });
  });
});
