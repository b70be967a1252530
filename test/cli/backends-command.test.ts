import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { closedPort } from '../helpers/closed-port.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The built CLI, as the installed `tokentap` command runs it (npm test builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const ADMIN_TOKEN = 'admin-token-of-the-backends-cli-test';

interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `tokentap ARGS` with only PATH (and `env`) set, without blocking the event loop the simulators answer on. */
async function tokentap(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const temp = makeTempDir('tokentap-backends-');
let sims: SimBackend[] = [];
let serve: ChildProcess | undefined;
let gateway = '';
let port = 0;
const urls: string[] = [];

// one real `tokentap serve` with repeated --backend flags: a vLLM and an SGLang simulator, a replica nobody listens on,
// and a vLLM before 0.10.2 (return_token_ids ignored, no token-id fields)
beforeAll(async () => {
  sims = await Promise.all([
    createSimBackend({ fast: true }),
    createSimBackend({ fast: true, flavour: 'sglang' }),
    createSimBackend({ fast: true, unrequestedTokenIds: 'absent', serverVersion: '0.10.1' }),
  ]);
  sims[2]!.app.addHook('preHandler', async (request) => {
    if (request.body !== null && typeof request.body === 'object') delete (request.body as Record<string, unknown>).return_token_ids;
  });
  const [vllm, sglang, oldVllm] = await Promise.all(sims.map((sim) => sim.listen()));
  urls.push(vllm!, sglang!, `http://127.0.0.1:${await closedPort()}`, oldVllm!);
  port = await closedPort();
  gateway = `http://127.0.0.1:${port}`;
  const backendFlags = [`vllm=${urls[0]}`, `sglang=${urls[1]}`, `vllm=${urls[2]}`, `vllm=${urls[3]}`].flatMap((backend) => ['--backend', backend]);
  serve = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--db', temp.file('backends.db'), '--log-format', 'json', ...backendFlags], {
    env: { PATH: process.env.PATH, TOKENTAP_ADMIN_TOKEN: ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for await (const line of createInterface({ input: serve.stdout! })) if (line.includes('tokentap listening')) break;
}, 60_000);

afterAll(async () => {
  if (serve !== undefined && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await Promise.all(sims.map((sim) => sim.close()));
  temp.remove();
});

describe('tokentap backends, against a running tokentap serve (issue 15)', () => {
  it('prints each replica: id, flavour, url, state, models, load, token ids and version, then why one is down', async () => {
    const result = await tokentap(['backends', '--url', gateway, '--admin-token', ADMIN_TOKEN]);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    const [header, ...rows] = result.stdout.split('\n');
    expect(header).toMatch(/^id\s+flavour\s+url\s+state\s+models\s+in flight\s+calls\s+errors\s+sessions pinned\s+token ids\s+version$/);
    expect(rows[0]).toMatch(
      new RegExp(`^vllm-1\\s+vllm\\s+${urls[0]}\\s+up\\s+Qwen/Qwen3-8B\\s+0\\s+0\\s+0\\s+0\\s+yes\\s+0\\.11\\.0\\+tokentap\\.sim$`),
    );
    expect(rows[1]).toMatch(new RegExp(`^sglang-1\\s+sglang\\s+${urls[1]}\\s+up\\s+Qwen/Qwen3-8B\\s+0\\s+0\\s+0\\s+0\\s+yes\\s+0\\.5\\.10$`));
    expect(rows[2]).toMatch(new RegExp(`^vllm-2\\s+vllm\\s+${urls[2]}\\s+down\\s+\\?\\s+0\\s+0\\s+0\\s+0\\s+unknown\\s+-$`));
    expect(rows[3]).toMatch(new RegExp(`^vllm-3\\s+vllm\\s+${urls[3]}\\s+up\\s+Qwen/Qwen3-8B\\s+0\\s+0\\s+0\\s+0\\s+no\\s+0\\.10\\.1$`));
    // the notes below the table: why vllm-2 is down (its token ids are not known yet), why vllm-3 has none
    expect(result.stdout).toMatch(/\n\nvllm-2: down: [^\n]*ECONNREFUSED[^\n]*\nvllm-3: token ids: [^\n]*vLLM 0\.10\.2[^\n]*\n$/);
  });

  it('reads the gateway and its admin token from the config when no flag gives them, and --json prints the snapshots', async () => {
    const result = await tokentap(['backends', '--json'], { TOKENTAP_PORT: String(port), TOKENTAP_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(result.status, result.stderr).toBe(0);
    const replicas = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; capabilities: { returnsTokenIds: boolean | null } });
    expect(replicas.map((replica) => [replica.id, replica.state, replica.capabilities.returnsTokenIds])).toEqual([
      ['vllm-1', 'up', true],
      ['sglang-1', 'up', true],
      ['vllm-2', 'down', null],
      ['vllm-3', 'up', false],
    ]);
  });

  it('drains a replica and undrains it, printing its row', async () => {
    const drained = await tokentap(['backends', 'drain', 'sglang-1', '--url', gateway, '--admin-token', ADMIN_TOKEN]);
    expect(drained.status, drained.stderr).toBe(0);
    expect(drained.stdout.split('\n')[1]).toMatch(/^sglang-1\s+sglang\s+\S+\s+draining\s/);
    const listed = await tokentap(['backends', '--url', gateway, '--admin-token', ADMIN_TOKEN]);
    expect(listed.stdout).toMatch(/\nsglang-1\s+sglang\s+\S+\s+draining\s/);
    const undrained = await tokentap(['backends', 'undrain', 'sglang-1', '--url', gateway, '--admin-token', ADMIN_TOKEN]);
    expect(undrained.status, undrained.stderr).toBe(0);
    expect(undrained.stdout.split('\n')[1]).toMatch(/^sglang-1\s+sglang\s+\S+\s+up\s/);
  });

  it('says in one line, exit 2, when the replica is unknown, the token missing, or the gateway cannot be reached', async () => {
    const unknown = await tokentap(['backends', 'drain', 'nope', '--url', gateway, '--admin-token', ADMIN_TOKEN]);
    expect(unknown).toMatchObject({ status: 2, stdout: '' });
    expect(unknown.stderr).toBe(
      `tokentap: the gateway at ${gateway} answered 404: TT_BACKEND_NOT_FOUND: No backend replica 'nope' (replicas: vllm-1, sglang-1, vllm-2, vllm-3)\n`,
    );
    const tokenless = await tokentap(['backends', '--url', gateway]);
    expect(tokenless.status).toBe(2);
    expect(tokenless.stderr).toMatch(
      /^tokentap: the gateway at [^\n]+ answered 401: TT_UNAUTHORIZED: [^\n]+ \(give --admin-token, or set TOKENTAP_ADMIN_TOKEN\)\n$/,
    );
    const nobody = `http://127.0.0.1:${await closedPort()}`;
    const unreachable = await tokentap(['backends', '--url', nobody, '--admin-token', ADMIN_TOKEN]);
    expect(unreachable.status).toBe(2);
    expect(unreachable.stderr).toMatch(
      new RegExp(
        `^tokentap: cannot reach the gateway at ${nobody} \\([^\\n]*ECONNREFUSED[^\\n]*\\): is tokentap serve running there\\? \\(give --url\\)\\n$`,
      ),
    );
    const noId = await tokentap(['backends', 'drain', '--url', gateway]);
    expect(noId).toMatchObject({ status: 2, stderr: 'tokentap: give the replica: tokentap backends drain ID (tokentap backends lists them)\n' });
  });
});
