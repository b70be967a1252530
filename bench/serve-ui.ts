/**
 * bench/serve-ui: what browsing a live gateway's viewer (`serve --ui`) costs the calls it serves. Two gateways on
 * copies of one recorded store (300 sessions x 16 turns), in front of the fast simulator: one answers the viewer's
 * API on its thread (`uiInWorker`, the default), one on its event loop (`uiInWorker: false`). Each carries 4
 * conversations of streamed calls in a closed loop, first alone, then while a viewer client asks for a heavy page
 * (the stats of every session, each reconstructed and verified) one after another; rounds alternate the order.
 * Prints each setup's calls/s, p50/p99 latency, the p99 of each call's longest pause between two chunks, and the
 * ratios with the viewer busy over without, in one run.
 *
 *   npm run bench:serve-ui [-- --seconds 5 --rounds 3]
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { makeBenchStore } from './make-store.js';
import { percentile } from './percentile.js';
import { startBenchServer } from './start-bench-server.js';

const STORE = { sessions: 300, turns: 16, systemTokens: 4000, turnTokens: 300, driftRate: 0.05 };
const CONVERSATIONS = 4;
const HEAVY_PAGE = '/ui/api/stats';

const CALL_BODY = JSON.stringify({
  model: 'Qwen/Qwen3-8B',
  stream: true,
  max_tokens: 64,
  messages: [
    { role: 'system', content: 'You are a careful assistant. '.repeat(40) },
    { role: 'user', content: 'hello' },
  ],
});

interface Sample {
  latencies: number[];
  /** each call's longest pause between two chunks of its stream, ms */
  gaps: number[];
  pages: number;
  seconds: number;
  errors: number;
}

/** One streamed call; its latency (sent to last byte) and its longest pause between two chunks. */
async function streamedCall(pool: Pool): Promise<{ latency: number; gap: number }> {
  const start = performance.now();
  const response = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    body: CALL_BODY,
    headers: { 'content-type': 'application/json' },
  });
  let last = start;
  let gap = 0;
  for await (const chunk of response.body) {
    void chunk;
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
  return { latency: performance.now() - start, gap };
}

/** CONVERSATIONS closed loops of calls for `seconds`; with `browse`, a viewer client asks for the heavy page meanwhile. */
async function runPhase(pool: Pool, seconds: number, browse: boolean): Promise<Sample> {
  const sample: Sample = { latencies: [], gaps: [], pages: 0, seconds, errors: 0 };
  const until = performance.now() + seconds * 1000;
  const conversation = async (): Promise<void> => {
    while (performance.now() < until) {
      try {
        const { latency, gap } = await streamedCall(pool);
        sample.latencies.push(latency);
        sample.gaps.push(gap);
      } catch (error) {
        sample.errors++;
        if (sample.errors <= 3) process.stderr.write(`call failed: ${(error as Error).message}\n`);
      }
    }
  };
  const viewer = async (): Promise<void> => {
    while (browse && performance.now() < until) {
      const response = await pool.request({ method: 'GET', path: HEAVY_PAGE });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`the viewer answered ${response.statusCode}`);
      sample.pages++;
    }
  };
  await Promise.all([...Array.from({ length: CONVERSATIONS }, conversation), viewer()]);
  return sample;
}

function merge(samples: Sample[]): Sample {
  return {
    latencies: samples.flatMap((sample) => sample.latencies),
    gaps: samples.flatMap((sample) => sample.gaps),
    pages: samples.reduce((sum, sample) => sum + sample.pages, 0),
    seconds: samples.reduce((sum, sample) => sum + sample.seconds, 0),
    errors: samples.reduce((sum, sample) => sum + sample.errors, 0),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } } });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const store = makeBenchStore(STORE);
  const temp = mkdtempSync(join(tmpdir(), 'tokentap-bench-ui-'));
  const sim = await startBenchServer(['sim']);
  const setups = { thread: 'ui', 'event loop': 'ui-on-loop' } as const;
  const pools: Record<string, Pool> = {};
  const children: ChildProcess[] = [sim.child];
  try {
    for (const [name, mode] of Object.entries(setups)) {
      const db = join(temp, `${mode}.db`);
      copyFileSync(store, db);
      const gateway = await startBenchServer(['gateway', sim.url, db, mode]);
      children.push(gateway.child);
      pools[name] = new Pool(gateway.url, { connections: CONVERSATIONS + 2 });
    }
    const results: Record<string, { alone: Sample[]; browsed: Sample[] }> = {};
    for (const name of Object.keys(setups)) {
      results[name] = { alone: [], browsed: [] };
      // warm-up: the viewer's first page (its thread started, the store's pages in the cache) and a few calls
      await runPhase(pools[name]!, 1, true);
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? Object.keys(setups) : Object.keys(setups).reverse();
      for (const name of order) {
        results[name]!.alone.push(await runPhase(pools[name]!, seconds, false));
        results[name]!.browsed.push(await runPhase(pools[name]!, seconds, true));
      }
    }
    console.log(
      `serve --ui: ${CONVERSATIONS} conversations of streamed calls (64 tokens) against the fast simulator; the viewer asks ${HEAVY_PAGE} (${STORE.sessions} sessions x ${STORE.turns} turns) one after another`,
    );
    console.log('| viewer API on | viewer | calls/s | p50 ms | p99 ms | p99 longest pause in a stream, ms | heavy pages/s | errors |');
    console.log('|---|---|---|---|---|---|---|---|');
    const ratios: string[] = [];
    for (const name of Object.keys(setups)) {
      const alone = merge(results[name]!.alone);
      const browsed = merge(results[name]!.browsed);
      for (const [label, sample] of [
        ['idle', alone],
        ['busy', browsed],
      ] as const) {
        console.log(
          `| ${name} | ${label} | ${(sample.latencies.length / sample.seconds).toFixed(0)} | ${percentile(sample.latencies, 0.5).toFixed(1)} | ${percentile(sample.latencies, 0.99).toFixed(1)} | ${percentile(sample.gaps, 0.99).toFixed(1)} | ${(sample.pages / sample.seconds).toFixed(2)} | ${sample.errors} |`,
        );
      }
      ratios.push(
        `${name}: p99 latency busy / idle ${(percentile(browsed.latencies, 0.99) / percentile(alone.latencies, 0.99)).toFixed(2)}x, ` +
          `p99 longest pause busy / idle ${(percentile(browsed.gaps, 0.99) / percentile(alone.gaps, 0.99)).toFixed(2)}x, ` +
          `calls/s busy / idle ${(browsed.latencies.length / browsed.seconds / (alone.latencies.length / alone.seconds)).toFixed(2)}x`,
      );
    }
    for (const line of ratios) console.log(line);
  } finally {
    for (const pool of Object.values(pools)) await pool.close();
    for (const child of children) child.kill();
    rmSync(temp, { recursive: true, force: true });
  }
}

await main();
