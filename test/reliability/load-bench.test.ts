import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startLoadSim } from '../../bench/load-processes.js';

const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), 'tokentap-load-bench-test-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function streamTokens(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ model: 'm', max_tokens: 12, stream: true, return_token_ids: true, messages: [{ role: 'user', content: 'go' }] }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).toContain('data: [DONE]');
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .flatMap((line) => (JSON.parse(line.slice(6)) as { choices: { token_ids?: number[] }[] }).choices.flatMap((choice) => choice.token_ids ?? []))
    .length;
}

describe('the load bench', () => {
  it('runs the simulator as several processes behind one port that serve streams, and SIGTERM ends every one', async () => {
    const sim = await startLoadSim({ tokensPerSecond: 0, replyTokens: 50, streamInterval: 1, workers: 2, logFile: join(workDir, 'sim.log') });
    expect(sim.pids).toHaveLength(3);
    expect(sim.pids[0]).toBe(sim.child.pid);
    // one connection each: node:cluster hands new connections to the workers in turn
    const counts = await Promise.all(Array.from({ length: 6 }, () => streamTokens(sim.url)));
    expect(counts).toEqual([12, 12, 12, 12, 12, 12]);
    expect(await sim.stop()).toBe(0);
    // the workers end right after the primary: wait for each to be gone (no fixed sleep)
    await expect.poll(() => sim.pids.filter(alive), { timeout: 10_000 }).toEqual([]);
  }, 60_000);

  it('a short run through tokentap serve exits 0 with no error, no lost call, and reports the main thread', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        'dist/bench/load.js',
        '--sessions',
        '4',
        '--minutes',
        '0.1',
        '--tokens',
        '20',
        '--rate',
        '100',
        '--stream-interval',
        '3',
        '--system-tokens',
        '300',
        '--sim-workers',
        '2',
        '--work-dir',
        workDir,
      ],
      { timeout: 90_000 },
    );
    expect(stdout).toMatch(/^errors: +0$/m);
    expect(stdout).toMatch(/^lost calls: +0 \((\d+) received in full; \1 ok in the store with as many completion ids; 0 with another count/m);
    expect(stdout).toMatch(/main thread \d+\.\d+ cores, \d+\.\d+ ms per call\), simulator [\d.]+ s \([\d.]+ cores, 2 processes\)/);
    expect(stdout).toMatch(/^gateway exit: +0 after SIGTERM$/m);
  }, 120_000);

  it('with --gateways 2 the sessions share one database through two gateways, both record, nothing is lost', async () => {
    const dir = join(workDir, 'two-gateways');
    const { stdout } = await run(
      process.execPath,
      [
        'dist/bench/load.js',
        '--sessions',
        '6',
        '--minutes',
        '0.1',
        '--tokens',
        '20',
        '--rate',
        '100',
        '--stream-interval',
        '3',
        '--system-tokens',
        '300',
        '--sim-workers',
        '1',
        '--gateways',
        '2',
        '--work-dir',
        dir,
        '--keep',
      ],
      { timeout: 90_000 },
    );
    expect(stdout).toContain('2 gateways on one database');
    expect(stdout).toMatch(/^errors: +0$/m);
    expect(stdout).toMatch(/^lost calls: +0 \((\d+) received in full; \1 ok in the store/m);
    const database = new Database(join(dir, 'load.db'), { readonly: true });
    const byGateway = database.prepare(`SELECT instance_id, count(*) AS calls FROM calls WHERE status = 'ok' GROUP BY instance_id`).all() as {
      instance_id: string | null;
      calls: number;
    }[];
    const instancesLeft = database.prepare('SELECT count(*) AS n FROM gateway_instances').get();
    database.close();
    expect(byGateway).toHaveLength(2);
    expect(byGateway.every((row) => row.instance_id !== null && row.calls > 0)).toBe(true);
    expect(instancesLeft).toEqual({ n: 0 });
  }, 120_000);

  it('with --replicas 2 --flavours vllm,sglang it runs a sticky and a round-robin phase over both replicas, each without error or lost call', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        'dist/bench/load.js',
        ...['--replicas', '2', '--flavours', 'vllm,sglang', '--sessions', '4', '--minutes', '0.1'],
        ...['--tokens', '20', '--rate', '100', '--stream-interval', '3', '--system-tokens', '300'],
        ...['--work-dir', join(workDir, 'replicas')],
      ],
      { timeout: 90_000 },
    );
    expect(stdout).toContain('phase --backend-affinity session:');
    expect(stdout).toContain('phase --backend-affinity none:');
    expect(stdout.match(/^errors: +0$/gm)).toHaveLength(2);
    expect(stdout.match(/^lost calls: +0 \((\d+) received in full; \1 ok in the store/gm)).toHaveLength(2);
    expect(stdout).toContain('fleet: 2 replicas (vllm-1, sglang-1)');
    // sticky: every session that made two calls or more made them all on one replica
    expect(stdout).toMatch(/^sessions on one replica +(\d+) of \1 \(100\.0%\)/m);
    expect(stdout).toMatch(/^ {2}vllm-1 +[1-9]\d*, /m);
    expect(stdout).toMatch(/^ {2}sglang-1 +[1-9]\d*, /m);
  }, 150_000);
});
