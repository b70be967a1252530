import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { openStore } from '../../store/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordRawCall } from '../reconstruct/record-raw-call.js';

/** The built CLI, as the installed `tokentap` command runs it (npm test builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir('tokentap-fail-fast-');
});
afterEach(() => temp.remove());

// a safety net only: before the fix `serve` on a busy port never exited, and a test must end to fail
const HUNG_MS = 30_000;

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: temp.path,
    encoding: 'utf8',
    timeout: HUNG_MS,
    env: { PATH: process.env.PATH, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What a user's mistake must look like: exit 2, nothing on stdout, one `tokentap: ...` line on stderr and no stack. */
function expectOneLine(result: { status: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.stderr).toMatch(/^tokentap: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at |node:internal/);
  expect(result.status).toBe(2);
}

function recordedDatabase(): string {
  const db = temp.file('t.db');
  const store = openStore({ path: db });
  recordRawCall(store, 'run-1', { prompt: [1, 2, 3], completion: [4, 5] });
  store.close();
  return db;
}

async function listenOn(host: string): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Every command that opens a database, with what else it needs to get that far. */
const READERS = [
  ['sessions'],
  ['show', 'run-1'],
  ['diagnose', 'run-1'],
  ['stats'],
  ['export', '--format', 'verl', '--out', 'out.jsonl'],
  ['migrate'],
];

describe('tokentap serve fails fast on an address it cannot listen on (issue 14)', () => {
  it('exits 2 at once with one line naming the address in use and what to do', async () => {
    const { server, port } = await listenOn('127.0.0.1');
    try {
      const result = runCli(['serve', '--port', String(port), '--db', temp.file('s.db')]);
      expectOneLine(result, new RegExp(`127\\.0\\.0\\.1:${port} is already in use.*--port`));
    } finally {
      server.close();
    }
  });

  it('exits 2 with one line for an address this machine does not have (EADDRNOTAVAIL)', () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address
    expectOneLine(
      runCli(['serve', '--host', '192.0.2.1', '--port', '0', '--db', temp.file('s.db')]),
      /cannot listen on 192\.0\.2\.1:0: .*not an address of this machine.*--host/,
    );
  });

  it('refuses a --model-dir that is not a model folder before it listens', () => {
    expectOneLine(
      runCli(['serve', '--port', '0', '--db', temp.file('s.db'), '--model-dir', temp.file('nope')]),
      /--model-dir .*nope: no such folder/,
    );
    mkdirSync(temp.file('empty-model'));
    expectOneLine(
      runCli(['serve', '--port', '0', '--db', temp.file('s.db'), '--model-dir', temp.file('empty-model')]),
      /--model-dir .*empty-model: no tokenizer\.json/,
    );
  });

  it('refuses, in token-faithful mode, a --model-dir whose chat template is missing (it started and every call went plain)', () => {
    const folder = temp.file('no-template');
    mkdirSync(folder);
    const qwen3 = qwen3TokenizerDir();
    symlinkSync(path.join(qwen3, 'tokenizer.json'), path.join(folder, 'tokenizer.json'));
    const config = JSON.parse(readFileSync(path.join(qwen3, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    delete config.chat_template;
    writeFileSync(path.join(folder, 'tokenizer_config.json'), JSON.stringify(config));
    expectOneLine(
      runCli(['serve', '--port', '0', '--db', temp.file('s.db'), '--token-faithful', '*', '--model-dir', folder]),
      /^tokentap: --model-dir .*no-template: no chat template \(neither chat_template\.jinja nor a chat_template in tokenizer_config\.json\)/,
    );
  });
});

describe('a --db that is no database is one line and exit 2, for every command (issue 14)', () => {
  it('a folder', () => {
    for (const args of [...READERS, ['serve', '--port', '0']]) {
      expectOneLine(runCli([...args, '--db', temp.path]), /is a folder, not a database file/);
    }
  });

  it('a file that is not SQLite (README.md)', () => {
    writeFileSync(temp.file('README.md'), '# tokentap\n\nA gateway that records every model call.\n'.repeat(20));
    for (const args of [...READERS, ['serve', '--port', '0']]) {
      expectOneLine(runCli([...args, '--db', temp.file('README.md')]), /README\.md is not a tokentap database \(not a SQLite file\)/);
    }
  });

  it('a path in a folder that does not exist: readers find no database, serve creates none and says so', () => {
    for (const args of READERS) expectOneLine(runCli([...args, '--db', '/nonexistent/dir/x.db']), /no database at \/nonexistent\/dir\/x\.db/);
    expectOneLine(
      runCli(['serve', '--port', '0', '--db', '/nonexistent/dir/x.db']),
      /\/nonexistent\/dir\/x\.db: the folder \/nonexistent\/dir does not exist/,
    );
  });

  it('an empty file or /dev/null: readers say it was never initialized (it printed a stack)', () => {
    writeFileSync(temp.file('empty.db'), '');
    for (const db of [temp.file('empty.db'), '/dev/null']) {
      // (migrate is the one command that writes: it initializes an empty file)
      for (const args of READERS.filter(([command]) => command !== 'migrate')) expectOneLine(runCli([...args, '--db', db]), /never initialized/);
    }
  });

  it('a database from a newer tokentap (STORE_SCHEMA_TOO_NEW)', () => {
    const db = recordedDatabase();
    const database = new Database(db);
    database.pragma('user_version = 999');
    database.close();
    for (const args of [...READERS, ['serve', '--port', '0']]) {
      expectOneLine(runCli([...args, '--db', db]), /schema version 999 .*upgrade tokentap/);
    }
  });
});

describe('tokentap export refuses an --out it cannot write, before writing anything (issue 14)', () => {
  const exportTo = (db: string, out: string, ...more: string[]) => runCli(['export', '--db', db, '--format', 'verl', '--out', out, ...more]);

  it('a path whose folder is a file', () => {
    const db = recordedDatabase();
    writeFileSync(temp.file('notes.txt'), 'x');
    expectOneLine(exportTo(db, temp.file('notes.txt/train.jsonl')), /notes\.txt is a file, not a folder/);
  });

  it('a folder that cannot hold files (/proc, /sys)', () => {
    const db = recordedDatabase();
    for (const out of ['/proc/train.jsonl', '/sys/train.jsonl']) expectOneLine(exportTo(db, out), new RegExp(`cannot write ${out}: `));
  });

  it('an existing folder, with and without --force, and leaves nothing behind', () => {
    const db = recordedDatabase();
    mkdirSync(temp.file('out'));
    mkdirSync(temp.file('out.jsonl'));
    for (const more of [[], ['--force']]) {
      const result = exportTo(db, temp.file('out'), ...more);
      expectOneLine(result, /out is a folder: give the dataset file's path/);
      expect(result.stderr).not.toContain('--force');
      expectOneLine(exportTo(db, temp.file('out.jsonl'), ...more), /out\.jsonl is a folder: give the dataset file's path/);
    }
    expect(
      readdirSync(temp.path)
        .filter((name) => !name.startsWith('t.db'))
        .sort(),
    ).toEqual(['out', 'out.jsonl']);
    expect(readdirSync(temp.file('out.jsonl'))).toEqual([]);
  });
});

describe('a bad value is named as the user set it: flag, environment variable or config file key (issue 14)', () => {
  it('an export option names its flag, not the internal key', () => {
    const db = recordedDatabase();
    const result = runCli(['export', '--db', db, '--format', 'verl', '--out', temp.file('a.jsonl'), '--advantage', 'foo']);
    expectOneLine(result, /--advantage "foo": .*grpo/);
    expect(result.stderr).not.toContain('estimator');
    const range = runCli(['stats', '--db', db, '--reward-min', '2', '--reward-max', '1']);
    expectOneLine(range, /--reward-min must not exceed --reward-max/);
  });

  it('a serve setting names the flag, the environment variable or the config file key it came from', () => {
    expectOneLine(runCli(['serve', '--port', 'abc']), /invalid configuration: --port "abc": /);
    const fromEnv = runCli(['serve'], { TOKENTAP_PORT: 'xyz' });
    expectOneLine(fromEnv, /invalid configuration: TOKENTAP_PORT="xyz" \(environment\): /);
    expect(fromEnv.stderr).not.toContain('at port');
    writeFileSync(temp.file('gw.json'), JSON.stringify({ pauseMode: 'sometimes', prot: 1 }));
    const fromFile = runCli(['serve', '--config', temp.file('gw.json')]);
    expectOneLine(fromFile, /"pauseMode" in .*gw\.json: /);
    expect(fromFile.stderr).toMatch(/unknown key "prot" in .*gw\.json/);
    // a secret is named, never printed
    const token = runCli(['serve'], { TOKENTAP_ADMIN_TOKEN: 'short-secret' });
    expectOneLine(token, /TOKENTAP_ADMIN_TOKEN \(environment\): TOKENTAP_ADMIN_TOKEN must be at least 16 characters/);
    expect(token.stderr).not.toContain('short-secret');
  });
});

describe('every command ends quietly when its reader goes away (EPIPE; issue 14)', () => {
  /** Runs the CLI with stdout (or stderr) a pipe whose reading end is closed before the command writes. */
  async function runWithClosedReader(args: string[], stream: 'stdout' | 'stderr'): Promise<{ status: number | null; stderr: string }> {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: temp.path, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    if (stream === 'stdout') child.stdout.destroy();
    else child.stderr.destroy();
    if (stream === 'stdout') child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { status, stderr };
  }

  it('sessions --json | head: exit 0, no stack', async () => {
    const db = recordedDatabase();
    expect(await runWithClosedReader(['sessions', '--json', '--db', db], 'stdout')).toEqual({ status: 0, stderr: '' });
    expect(await runWithClosedReader(['show', 'run-1', '--db', db], 'stdout')).toEqual({ status: 0, stderr: '' });
    expect(await runWithClosedReader(['--help'], 'stdout')).toEqual({ status: 0, stderr: '' });
  });

  it("a user's mistake written to a closed stderr keeps its exit code 2", async () => {
    expect((await runWithClosedReader(['sessions', '--db', temp.file('missing.db')], 'stderr')).status).toBe(2);
  });
});
