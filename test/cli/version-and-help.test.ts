import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI, as the installed `tokentap` command runs it (npm test builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('tokentap --version and sim-backend -h (issue 14)', () => {
  it('prints the package version for --version and -v, exit 0', () => {
    for (const flag of ['--version', '-v']) {
      expect(runCli([flag])).toEqual({ status: 0, stdout: `tokentap ${PACKAGE.version}\n`, stderr: '' });
    }
  });

  it('prints the simulator usage for sim-backend -h and --help, exit 0, nothing on stderr', () => {
    for (const flag of ['-h', '--help']) {
      const result = runCli(['sim-backend', flag]);
      expect(result).toMatchObject({ status: 0, stderr: '' });
      expect(result.stdout.split('\n')[0]).toBe('Usage: tokentap sim-backend [options]');
      expect(result.stdout).toContain('-h, --help');
    }
  });

  it('names --version in the top-level help', () => {
    expect(runCli(['--help']).stdout).toMatch(/^ {2}-v, --version +print tokentap's version$/m);
  });
});
