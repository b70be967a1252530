import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { closedPort } from '../helpers/closed-port.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';
import { recordCall } from '../store/store-fixtures.js';

/** The built CLI (npm test builds first, as the installed `tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const PASSWORD = 's3cret-pw';

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The test database's URL with a password in it (the test server trusts loopback, so any password connects). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

/** One line on stderr, `tokentap: ...`, no stack, no password: how every mistake ends (exit 2). */
function expectOneLineMistake(result: { status: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect(result.status, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^tokentap: [^\n]*\n$/);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toContain(PASSWORD);
}

describe.skipIf(!postgresAvailable())(
  `tokentap migrate --from FILE --to URL${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`,
  () => {
    const temp = makeTempDir('tokentap-migrate-copy-');
    const source = temp.file('tokentap.db');
    let target: string;
    beforeAll(() => {
      const store = openStore({ path: source });
      for (let index = 0; index < 12; index++) recordCall(store, { sessionId: `s-${index % 4}` }, { stopReason: index % 2 === 0 ? 'END' : 7 });
      store.close();
      target = withPassword(createTestDatabase('cli_copy'));
    });
    afterAll(() => {
      dropTestDatabase(target);
      temp.remove();
    });

    it('copies and verifies: the digest on stdout, progress lines (not one per row) on stderr, never the password', () => {
      const result = runCli(['migrate', '--from', source, '--to', target]);
      expect(result.status, result.stderr).toBe(0);
      const label = target.replace(`:${PASSWORD}@`, ':***@');
      expect(result.stdout).toMatch(
        new RegExp(
          `^copied ${source.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} to ${label.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: \\d+ rows in \\d+ tables \\(\\d+ rows copied\\)\n` +
            'verified: 12 calls in 4 sessions, row counts equal, digest [0-9a-f]{64}\n$',
        ),
      );
      const lines = result.stderr.trim().split('\n');
      expect(
        lines.every((line) => /^tokentap: (copying \w+: \d+\/\d+ rows|verifying: \d+\/4 sessions)$/.test(line)),
        result.stderr,
      ).toBe(true);
      // a line as each table starts (and every few seconds within one), one as the verification starts
      expect(lines.filter((line) => line.startsWith('tokentap: copying calls: '))).toHaveLength(1);
      expect(lines.filter((line) => line.startsWith('tokentap: verifying: '))).toHaveLength(1);
      expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWORD);
      const copied = openStore({ path: target, readonly: true });
      try {
        expect(copied.listCalls('s-1').map((call) => [call.seq, call.stopReason, call.completionTokenIds])).toEqual([
          [1, 7, Int32Array.from([9707, 0, 151645])],
          [2, 7, Int32Array.from([9707, 0, 151645])],
          [3, 7, Int32Array.from([9707, 0, 151645])],
        ]);
      } finally {
        copied.close();
      }
    });

    it('a second copy into the finished one is refused: one line, exit 2', () => {
      expectOneLineMistake(runCli(['migrate', '--from', source, '--to', target]), /already holds a finished, verified copy of /);
    });

    it('user mistakes are one line and exit 2: a missing file, no URL, half the flags, an unreachable server', async () => {
      expectOneLineMistake(runCli(['migrate', '--from', temp.file('missing.db'), '--to', target]), /no SQLite store at .*missing\.db/);
      expectOneLineMistake(runCli(['migrate', '--from', source, '--to', temp.file('other.db')]), /--to takes a PostgreSQL URL/);
      expectOneLineMistake(runCli(['migrate', '--from', source]), /a copy takes both --from SQLITE_FILE and --to POSTGRES_URL/);
      expectOneLineMistake(runCli(['migrate', '--db', source, '--from', source, '--to', target]), /--db and --config do not go with --from\/--to/);
      const unreachable = `postgres://tt:${PASSWORD}@127.0.0.1:${await closedPort()}/tokentap`;
      expectOneLineMistake(
        runCli(['migrate', '--from', source, '--to', unreachable]),
        /cannot open the PostgreSQL store at postgres:\/\/tt:\*\*\*@127\.0\.0\.1:\d+\/tokentap: /,
      );
    });
  },
);
