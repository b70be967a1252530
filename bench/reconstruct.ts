/**
 * bench/reconstruct: tokens emitted in samples per second and peak memory (RSS) of reconstruction over a stored
 * synthetic store (bench/make-store.ts: by default 1,000 sessions x 50 turns, 4K-token system prompt, 400 tokens per
 * turn, 5% drift per turn), for `per-call` and `merge`, at two sizes (half the sessions, then all) to show that time
 * grows linearly with the tokens. Each measurement runs in its own process so its peak RSS is its own; a `read`
 * row times reading the calls alone (the store's share of the work). One core; plain text, no assertions.
 *
 *   npm run build && node dist/bench/reconstruct.js [--sessions 1000 --turns 50 --system-tokens 4096 --turn-tokens 400 --drift-rate 0.05]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '../store/index.js';
import { iterateSamples } from '../reconstruct/iterate-samples.js';
import { reconstructCalls } from '../reconstruct/reconstruct-calls.js';
import type { ReconstructStrategy } from '../reconstruct/reconstruct-options.js';
import { benchStoreParams, makeBenchStore, type BenchStoreParams } from './make-store.js';

/**
 * `read`: only reading the call rows; `per-call` / `merge`: reading and reconstructing (what an exporter pays);
 * `per-call core` / `merge core`: the reconstruction alone, timed around `reconstructCalls` with the rows already read.
 */
type Mode = 'read' | ReconstructStrategy | 'per-call core' | 'merge core';
const MODES: Mode[] = ['read', 'per-call', 'merge', 'per-call core', 'merge core'];

interface Measurement {
  mode: Mode;
  sessions: number;
  samples: number;
  /** ids emitted in samples (for `read`: the ids read) */
  tokens: number;
  /** prompt + completion ids of every call read: the input the reconstruction covers */
  inputTokens: number;
  /** wall-clock seconds */
  seconds: number;
  /** CPU seconds (user + system): on a busy machine the per-core figure wall time cannot give */
  cpuSeconds: number;
  peakRssMb: number;
}

/** Runs in the child: one pass over the whole store. */
function measure(mode: Mode, path: string): Measurement {
  const opened = openStore({ path, readonly: true });
  let inputTokens = 0;
  const store = {
    ...opened,
    listSessions: opened.listSessions,
    getCallBodies: opened.getCallBodies,
    listCalls(sessionId: string) {
      const calls = opened.listCalls(sessionId);
      for (const call of calls) inputTokens += (call.promptTokenIds?.length ?? 0) + (call.completionTokenIds?.length ?? 0);
      return calls;
    },
  };
  const started = process.hrtime.bigint();
  const startedCpu = process.cpuUsage();
  let tokens = 0;
  let samples = 0;
  const sessionIds = store.listSessions({ limit: 1_000_000 }).map((session) => session.id);
  let untimed = 0n;
  let untimedCpu = 0;
  if (mode === 'read') {
    for (const sessionId of sessionIds) {
      store.listCalls(sessionId);
    }
    tokens = inputTokens;
  } else if (mode === 'per-call' || mode === 'merge') {
    for (const sample of iterateSamples(store, { sessionIds, strategy: mode })) {
      tokens += sample.tokens.length;
      samples += 1;
    }
  } else {
    const strategy = mode === 'merge core' ? 'merge' : 'per-call';
    for (const sessionId of sessionIds) {
      const reading = process.hrtime.bigint();
      const readingCpu = process.cpuUsage();
      const calls = store.listCalls(sessionId);
      untimed += process.hrtime.bigint() - reading;
      untimedCpu += cpuSecondsSince(readingCpu);
      for (const sample of reconstructCalls(sessionId, calls, (callId) => store.getCallBodies(callId, { lazy: true }), { strategy }).samples) {
        tokens += sample.tokens.length;
        samples += 1;
      }
    }
  }
  const seconds = Number(process.hrtime.bigint() - started - untimed) / 1e9;
  const cpuSeconds = cpuSecondsSince(startedCpu) - untimedCpu;
  opened.close();
  return { mode, sessions: sessionIds.length, samples, tokens, inputTokens, seconds, cpuSeconds, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

function measureInChild(mode: Mode, path: string): Measurement {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', mode, path], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`measuring ${mode} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Measurement;
}

function row(size: string, result: Measurement): string {
  const rate = (tokens: number): string => (tokens / result.cpuSeconds / 1e6).toFixed(1).padStart(9);
  const columns = [
    String(result.sessions).padStart(8),
    String(result.samples).padStart(8),
    (result.tokens / 1e6).toFixed(1).padStart(8),
    result.seconds.toFixed(2).padStart(7),
    result.cpuSeconds.toFixed(2).padStart(7),
    rate(result.tokens),
    rate(result.inputTokens),
    result.peakRssMb.toFixed(0).padStart(7),
  ];
  return `${size.padEnd(6)} ${result.mode.padEnd(13)} ${columns.join(' ')}`;
}

function main(args: string[]): void {
  const full = benchStoreParams(args);
  const half: BenchStoreParams = { ...full, sessions: Math.max(1, Math.floor(full.sessions / 2)) };
  const lines = [
    `reconstruct: ${full.sessions} sessions x ${full.turns} turns, ${full.systemTokens}-token system prompt, ${full.turnTokens} tokens per turn, drift ${full.driftRate} per turn`,
  ];
  const paths: Record<string, string> = {};
  for (const [size, params] of [
    ['half', half],
    ['full', full],
  ] as const) {
    const started = Date.now();
    paths[size] = makeBenchStore(params);
    lines.push(`${size} store: ${paths[size]} (${((Date.now() - started) / 1000).toFixed(1)} s to make or find)`);
  }
  lines.push('', 'size   mode          sessions  samples  Mtokens    wall     cpu  emitted/s  input/s  peakMB');
  const results: Record<string, Measurement> = {};
  for (const size of ['half', 'full']) {
    for (const mode of MODES) {
      results[`${size}/${mode}`] = measureInChild(mode, paths[size] as string);
      lines.push(row(size, results[`${size}/${mode}`] as Measurement));
    }
  }
  lines.push('', 'growth from half to full (linear: cpu time ratio = token ratio):');
  for (const mode of MODES) {
    const small = results[`half/${mode}`] as Measurement;
    const large = results[`full/${mode}`] as Measurement;
    lines.push(
      `  ${mode.padEnd(13)} tokens x${(large.tokens / small.tokens).toFixed(2)}, cpu time x${(large.cpuSeconds / small.cpuSeconds).toFixed(2)}, wall time x${(large.seconds / small.seconds).toFixed(2)}`,
    );
  }
  lines.push('', 'Mtokens: ids emitted in samples, in millions (read: the ids read). wall, cpu: seconds. emitted/s, input/s: millions of');
  lines.push('ids emitted, and of prompt + completion ids of the calls covered, per CPU second (one core). A session read copies');
  lines.push('each stored id once (store/session-arena.ts) and hands out views, so input/s counts ids the read did not copy;');
  lines.push("merge emits each chain once. peakMB: each run's own peak RSS (each runs in its own process).");
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[2] === '--measure') process.stdout.write(JSON.stringify(measure(process.argv[3] as Mode, process.argv[4] as string)));
else main(process.argv.slice(2));
