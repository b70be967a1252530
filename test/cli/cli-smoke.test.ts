import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_KEYS, toEnvName, toFlagName } from '../../cli/load-config.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The built CLI, as the installed `tokentap` command runs it (npm test builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** A stack frame or Node's internals anywhere in what a user reads is a bug, whatever the exit code. */
const STACK = /^\s+at |node:internal|\n\s+at /m;

// the commands that listen until a signal: run here only with arguments that make them stop
const SERVERS = new Set(['serve', 'sim-backend']);

// made at load: the command list is read from `tokentap --help` while the tests are collected
const temp = makeTempDir('tokentap-smoke-');
afterAll(() => temp.remove());

/** Runs the CLI in an empty folder (no ./tokentap.db) with only PATH set. */
function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: temp.path, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function expectNoStack(result: { stdout: string; stderr: string }, what: string): void {
  expect(result.stdout, what).not.toMatch(STACK);
  expect(result.stderr, what).not.toMatch(STACK);
}

/** The commands `tokentap --help` lists: every one of them is smoke-tested, a new one included. */
function listedCommands(): string[] {
  const help = runCli(['--help']).stdout;
  const section = help.slice(help.indexOf('Commands:\n') + 'Commands:\n'.length, help.indexOf('\n\n', help.indexOf('Commands:\n')));
  return section.split('\n').map((line) => line.trim().split(/\s+/)[0] ?? '');
}

describe('CLI smoke: every command through the built tokentap (issue 14)', () => {
  const commands = listedCommands();

  it('lists the commands in tokentap --help', () => {
    expect(commands).toEqual(expect.arrayContaining(['serve', 'sim-backend', 'sessions', 'show', 'diagnose', 'export', 'stats', 'migrate']));
  });

  it.each(commands)('%s --help and -h: the same usage, exit 0, nothing on stderr', (command) => {
    const long = runCli([command, '--help']);
    expect(long).toMatchObject({ status: 0, stderr: '' });
    expect(long.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: tokentap ${command}( |$)`));
    expectNoStack(long, `${command} --help`);
    expect(runCli([command, '-h'])).toEqual(long);
  });

  it.each(commands)('%s with a wrong flag: one line, exit 2', (command) => {
    const result = runCli([command, '--no-such-flag']);
    expect(result.status, result.stderr).toBe(2);
    // the simulator (sim/, below cli/) prints its usage after the line
    if (command === 'sim-backend') expect(result.stderr).toMatch(/^tokentap sim-backend: [^\n]*--no-such-flag[^\n]*\n\nUsage: tokentap sim-backend/);
    else expect(result.stderr).toMatch(/^tokentap: [^\n]*--no-such-flag[^\n]*\n$/);
    expectNoStack(result, `${command} --no-such-flag`);
  });

  it.each(commands.filter((command) => !SERVERS.has(command)))(
    '%s with a required argument missing (and no database): one line, exit 2',
    (command) => {
      const result = runCli([command]);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^tokentap: [^\n]+\n$/);
      expectNoStack(result, command);
    },
  );

  it.each(commands.filter((command) => command !== 'sim-backend'))('%s --db with no value: one line, exit 2', (command) => {
    const result = runCli([command, '--db']);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^tokentap: [^\n]*--db[^\n]*\n$/);
    expectNoStack(result, `${command} --db`);
  });

  it('tokentap alone prints the help and exits 2; an unknown command exits 2 without a stack', () => {
    const alone = runCli([]);
    expect(alone.status).toBe(2);
    expect(alone.stdout).toContain('Usage: tokentap <command>');
    const unknown = runCli(['frobnicate']);
    expect(unknown.status).toBe(2);
    expectNoStack(unknown, 'frobnicate');
  });
});

describe('tokentap serve --help is generated from the config schema (issue 14)', () => {
  const help = runCli(['serve', '--help']).stdout;
  const options = help.slice(help.indexOf('Options'), help.indexOf('Examples:'));

  it.each(CONFIG_KEYS.map((key) => [key]))('shows %s with its flag, a description, its default and its environment variable', (key) => {
    const flag = `--${toFlagName(key)}`;
    const block = new RegExp(`^  ${flag} (\\S+)\\n?\\s+(\\S[^\\n]+)\\n\\s+default ([^\\n;]+); env ${toEnvName(key)}$`, 'm');
    const match = block.exec(options);
    expect(match, `${flag} in serve --help`).not.toBeNull();
    expect(match?.[2]?.length).toBeGreaterThan(20);
  });

  it('ends with examples, and docs/config.md lists every key with its env and flag', () => {
    expect(help).toMatch(/\nExamples:\n( {2}[^\n]*tokentap serve [^\n]+\n){3,}$/);
    const docs = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
    for (const key of CONFIG_KEYS) expect(docs).toContain(`| \`${key}\` | \`${toEnvName(key)}\` | \`--${toFlagName(key)}\` |`);
  });
});
