/**
 * bench/proxy-overhead: the same load sent straight to the simulator (fast mode), through a plain Node pipe
 * proxy (the floor), and through tokentap with recording on; interleaved in one run, so machine drift hits all
 * three alike. Prints added p50/p99 latency over direct and the throughput ratio, per case:
 * concurrency 1 and 64, streaming and not, 2 KB and 200 KB request bodies.
 *
 *   npm run bench:proxy-overhead [-- --rounds 5 --requests 200]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const SERVER_SCRIPT = fileURLToPath(new URL('./bench-server.js', import.meta.url));

async function startServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return { url: (JSON.parse(line) as { url: string }).url, child };
  throw new Error(`server ${args[0]} exited before listening`);
}

function chatBody(bytes: number, stream: boolean): string {
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, Math.max(0, bytes - 200));
  return JSON.stringify({ model: 'Qwen/Qwen3-8B', stream, max_tokens: 64, messages: [{ role: 'system', content: filler }, { role: 'user', content: 'hello' }] });
}

/** One request, body read to the end; returns the latency in ms. */
async function timeRequest(pool: Pool, path: string, body: string): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await pool.request({ method: 'POST', path, body, headers: { 'content-type': 'application/json' } });
  for await (const chunk of response.body) void chunk;
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode} on ${path}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function runBatch(pool: Pool, path: string, body: string, requests: number, concurrency: number): Promise<{ latencies: number[]; seconds: number; errors: number }> {
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

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

interface Totals { latencies: number[]; seconds: number; requests: number; errors: number }

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, requests: { type: 'string', default: '200' } } });
  const rounds = Number(values.rounds);
  const requestsPerBatch = Number(values.requests);
  const temp = mkdtempSync(join(tmpdir(), 'tokentap-bench-'));
  const sim = await startServer(['sim']);
  const gateway = await startServer(['gateway', sim.url, join(temp, 'bench.db')]);
  const pipe = await startServer(['pipe', sim.url]);
  const targets = { direct: sim.url, pipe: pipe.url, tokentap: gateway.url };
  const pools = Object.fromEntries(Object.entries(targets).map(([name, url]) => [name, new Pool(url, { connections: 128 })])) as Record<keyof typeof targets, Pool>;
  const rows: string[] = [];
  try {
    for (const bytes of [2_048, 204_800]) {
      for (const stream of [false, true]) {
        for (const concurrency of [1, 64]) {
          const body = chatBody(bytes, stream);
          const totals = Object.fromEntries(Object.keys(targets).map((name) => [name, { latencies: [], seconds: 0, requests: 0, errors: 0 }])) as unknown as Record<keyof typeof targets, Totals>;
          // warm-up, then rounds A B C A B C ... so drift hits every target alike
          for (const name of Object.keys(targets) as Array<keyof typeof targets>) await runBatch(pools[name], '/v1/chat/completions', body, 20, concurrency);
          for (let round = 0; round < rounds; round++) {
            for (const name of Object.keys(targets) as Array<keyof typeof targets>) {
              const batch = await runBatch(pools[name], '/v1/chat/completions', body, requestsPerBatch, concurrency);
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
    for (const server of [gateway, pipe, sim]) server.child.kill();
    rmSync(temp, { recursive: true, force: true });
  }
  process.stdout.write([
    `proxy overhead: ${rounds} interleaved rounds x ${requestsPerBatch} requests per target and case; latency = request sent to last byte read`,
    '| body | mode | conc | direct p50 ms | pipe +p50 ms | tokentap +p50 ms | pipe +p99 ms | tokentap +p99 ms | pipe thr ratio | tokentap thr ratio | errors d/p/t |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n') + '\n');
}

function formatRow(bytes: number, stream: boolean, concurrency: number, totals: Record<'direct' | 'pipe' | 'tokentap', Totals>): string {
  const p = (name: 'direct' | 'pipe' | 'tokentap', fraction: number): number => percentile(totals[name].latencies, fraction);
  const throughput = (name: 'direct' | 'pipe' | 'tokentap'): number => totals[name].requests / totals[name].seconds;
  const fixed = (value: number): string => value.toFixed(3);
  return `| ${bytes >= 100_000 ? '200 KB' : '2 KB'} | ${stream ? 'stream' : 'json'} | ${concurrency} | ${fixed(p('direct', 0.5))} | ${fixed(p('pipe', 0.5) - p('direct', 0.5))} | ${fixed(p('tokentap', 0.5) - p('direct', 0.5))} | ${fixed(p('pipe', 0.99) - p('direct', 0.99))} | ${fixed(p('tokentap', 0.99) - p('direct', 0.99))} | ${(throughput('pipe') / throughput('direct')).toFixed(3)} | ${(throughput('tokentap') / throughput('direct')).toFixed(3)} | ${totals.direct.errors}/${totals.pipe.errors}/${totals.tokentap.errors} |`;
}

void main();
