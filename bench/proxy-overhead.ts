/**
 * bench/proxy-overhead: the same load sent straight to the simulator (fast mode), through a plain Node pipe
 * proxy (the floor), through tokentap recording on a worker thread (the default), and through tokentap recording
 * on its event loop (`recordInWorker: false`); interleaved in one run, so machine drift hits all alike. Prints
 * added p50/p99 latency over direct, the throughput ratio, and each tokentap's CPU time per call (its main thread,
 * and the process with every thread), per case: concurrency 1 and 64, streaming and not, 2 KB and 200 KB bodies.
 * CPU time per call holds still on a loaded machine where latency and throughput do not: one event loop saturates
 * at 1000 / (main-thread ms per call) calls per second, whatever the other cores do.
 *
 *   npm run bench:proxy-overhead [-- --rounds 5 --requests 200]
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { percentile } from './percentile.js';
import { startBenchServer } from './start-bench-server.js';

function chatBody(bytes: number, stream: boolean): string {
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, Math.max(0, bytes - 200));
  return JSON.stringify({
    model: 'Qwen/Qwen3-8B',
    stream,
    max_tokens: 64,
    messages: [
      { role: 'system', content: filler },
      { role: 'user', content: 'hello' },
    ],
  });
}

/** One request, body read to the end; returns the latency in ms. */
async function timeRequest(pool: Pool, path: string, body: string): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await pool.request({ method: 'POST', path, body, headers: { 'content-type': 'application/json' } });
  for await (const chunk of response.body) void chunk;
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode} on ${path}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function runBatch(
  pool: Pool,
  path: string,
  body: string,
  requests: number,
  concurrency: number,
): Promise<{ latencies: number[]; seconds: number; errors: number }> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const start = process.hrtime.bigint();
  async function worker(): Promise<void> {
    while (next < requests) {
      next++;
      try {
        latencies.push(await timeRequest(pool, path, body));
      } catch (error) {
        errors++;
        if (errors <= 3) process.stderr.write(`request failed on ${path}: ${(error as Error).message}\n`);
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, seconds: Number(process.hrtime.bigint() - start) / 1e9, errors };
}

interface Cpu {
  mainCpuMs: number;
  processCpuMs: number;
}

interface Totals {
  latencies: number[];
  seconds: number;
  requests: number;
  errors: number;
  cpu: Cpu;
}

type Target = 'direct' | 'pipe' | 'tokentap' | 'thread';

/** CPU ms a server has used so far, its main thread and all threads (asked over IPC). */
async function cpuMs(child: ChildProcess): Promise<Cpu> {
  return new Promise<Cpu>((resolve) => {
    child.once('message', (message) => resolve(message as Cpu));
    child.send('cpu');
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, requests: { type: 'string', default: '200' } } });
  const rounds = Number(values.rounds);
  const requestsPerBatch = Number(values.requests);
  const temp = mkdtempSync(join(tmpdir(), 'tokentap-bench-'));
  const sim = await startBenchServer(['sim']);
  const gateway = await startBenchServer(['gateway', sim.url, join(temp, 'bench.db')]);
  const threadGateway = await startBenchServer(['gateway', sim.url, join(temp, 'bench-thread.db'), 'thread']);
  const pipe = await startBenchServer(['pipe', sim.url]);
  const targets: Record<Target, string> = { direct: sim.url, pipe: pipe.url, tokentap: gateway.url, thread: threadGateway.url };
  const servers: Partial<Record<Target, ChildProcess>> = { tokentap: gateway.child, thread: threadGateway.child };
  const pools = Object.fromEntries(Object.entries(targets).map(([name, url]) => [name, new Pool(url, { connections: 128 })])) as Record<Target, Pool>;
  const rows: string[] = [];
  try {
    for (const bytes of [2_048, 204_800]) {
      for (const stream of [false, true]) {
        for (const concurrency of [1, 64]) {
          const body = chatBody(bytes, stream);
          const totals = Object.fromEntries(
            Object.keys(targets).map((name) => [name, { latencies: [], seconds: 0, requests: 0, errors: 0, cpu: { mainCpuMs: 0, processCpuMs: 0 } }]),
          ) as unknown as Record<Target, Totals>;
          // warm-up, then rounds A B C A B C ... so drift hits every target alike
          for (const name of Object.keys(targets) as Target[]) await runBatch(pools[name], '/v1/chat/completions', body, 20, concurrency);
          for (let round = 0; round < rounds; round++) {
            for (const name of Object.keys(targets) as Target[]) {
              const server = servers[name];
              const before = server === undefined ? null : await cpuMs(server);
              const batch = await runBatch(pools[name], '/v1/chat/completions', body, requestsPerBatch, concurrency);
              if (server !== undefined && before !== null) {
                const after = await cpuMs(server);
                totals[name].cpu.mainCpuMs += after.mainCpuMs - before.mainCpuMs;
                totals[name].cpu.processCpuMs += after.processCpuMs - before.processCpuMs;
              }
              totals[name].latencies.push(...batch.latencies);
              totals[name].seconds += batch.seconds;
              totals[name].requests += batch.latencies.length;
              totals[name].errors += batch.errors;
            }
          }
          rows.push(formatRow(bytes, stream, concurrency, totals));
          process.stderr.write(`done: ${rows.at(-1)}\n`);
        }
      }
    }
  } finally {
    for (const pool of Object.values(pools)) await pool.close();
    for (const server of [gateway, threadGateway, pipe, sim]) server.child.kill();
    rmSync(temp, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `proxy overhead: ${rounds} interleaved rounds x ${requestsPerBatch} requests per target and case; latency = request sent to last byte read;`,
      'tokentap records on a worker thread, "in-thread" on its event loop (recordInWorker: false); CPU ms/call: main thread / whole process',
      '| body | mode | conc | direct p50 ms | pipe +p50 ms | tokentap +p50 ms | in-thread +p50 ms | pipe +p99 ms | tokentap +p99 ms | in-thread +p99 ms | pipe thr ratio | tokentap thr ratio | in-thread thr ratio | tokentap CPU ms/call | in-thread CPU ms/call | errors d/p/t/i |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n') + '\n',
  );
}

function formatRow(bytes: number, stream: boolean, concurrency: number, totals: Record<Target, Totals>): string {
  const p = (name: Target, fraction: number): number => percentile(totals[name].latencies, fraction);
  const added = (name: Target, fraction: number): string => (p(name, fraction) - p('direct', fraction)).toFixed(3);
  const ratio = (name: Target): string =>
    (totals[name].requests / totals[name].seconds / (totals.direct.requests / totals.direct.seconds)).toFixed(3);
  const cpu = (name: Target): string => {
    const calls = Math.max(1, totals[name].requests);
    return `${(totals[name].cpu.mainCpuMs / calls).toFixed(2)} / ${(totals[name].cpu.processCpuMs / calls).toFixed(2)}`;
  };
  const errors = [totals.direct, totals.pipe, totals.tokentap, totals.thread].map((entry) => entry.errors).join('/');
  return `| ${bytes >= 100_000 ? '200 KB' : '2 KB'} | ${stream ? 'stream' : 'json'} | ${concurrency} | ${p('direct', 0.5).toFixed(3)} | ${added('pipe', 0.5)} | ${added('tokentap', 0.5)} | ${added('thread', 0.5)} | ${added('pipe', 0.99)} | ${added('tokentap', 0.99)} | ${added('thread', 0.99)} | ${ratio('pipe')} | ${ratio('tokentap')} | ${ratio('thread')} | ${cpu('tokentap')} | ${cpu('thread')} | ${errors} |`;
}

void main();
