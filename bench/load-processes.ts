import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BUILT_CLI, freePort } from './gateway-process.js';

const LOAD_SIM_SCRIPT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? './load-sim.js' : '../dist/bench/load-sim.js', import.meta.url));

/** A child process of the load bench and the base URL it serves. */
export interface LoadChild {
  url: string;
  child: ChildProcess;
  /** the processes whose CPU is this child's: itself and, for a simulator with workers, each worker */
  pids: number[];
  /** sends SIGTERM and resolves with the exit code (null when a signal ended it) */
  stop(): Promise<number | null>;
}

function stopper(child: ChildProcess): () => Promise<number | null> {
  const exited = once(child, 'exit') as Promise<[number | null]>;
  return async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const [code] = await exited;
    return code;
  };
}

/**
 * Starts bench/load-sim.js (built) with `workers` simulator processes behind one port and resolves once it prints
 * its URL; its log goes to `logFile`.
 *
 * @example const sim = await startLoadSim({ tokensPerSecond: 50, replyTokens: 200, streamInterval: 1, workers: 1, logFile: 'sim.log' });
 */
export async function startLoadSim(options: {
  tokensPerSecond: number;
  replyTokens: number;
  streamInterval: number;
  workers: number;
  logFile: string;
  profileDir?: string;
  /** the wire the simulator speaks; default vllm */
  flavour?: 'vllm' | 'sglang';
}): Promise<LoadChild> {
  const args = [
    ...profileFlags(options.profileDir),
    LOAD_SIM_SCRIPT,
    '--tokens-per-second',
    String(options.tokensPerSecond),
    '--reply-tokens',
    String(options.replyTokens),
    '--stream-interval',
    String(options.streamInterval),
    '--workers',
    String(options.workers),
    '--flavour',
    options.flavour ?? 'vllm',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', openSync(options.logFile, 'a')] });
  for await (const line of createInterface({ input: child.stdout! })) {
    const { url, pids } = JSON.parse(line) as { url: string; pids: number[] };
    return { url, child, pids, stop: stopper(child) };
  }
  throw new Error(`the load simulator exited before listening (see ${options.logFile})`);
}

/**
 * Starts `tokentap serve` (the built CLI) as an operator would, logging at warn into `logFile` (a file, never a
 * pipe the bench must keep reading), with one backend connection per concurrent stream; resolves once /healthz
 * answers 200. `backends` (`flavour=url` each) makes it a fleet, one `--backend` flag per replica, placed with
 * `affinity` (`--backend-affinity`).
 *
 * @example const gateway = await startLoadGateway({ backendUrl: sim.url, db: 'load.db', connections: 1000, logFile: 'gateway.log' });
 * @example await startLoadGateway({ backends: ['vllm=http://127.0.0.1:9001', 'vllm=http://127.0.0.1:9002'], affinity: 'none', db, connections, logFile });
 */
export async function startLoadGateway(options: {
  backendUrl?: string;
  backends?: string[];
  affinity?: 'session' | 'none';
  db: string;
  connections: number;
  logFile: string;
  profileDir?: string;
}): Promise<LoadChild> {
  const port = await freePort();
  const backendFlags = options.backends?.flatMap((backend) => ['--backend', backend]) ?? ['--backend-url', options.backendUrl ?? ''];
  const args = [
    'serve',
    ...backendFlags,
    ...(options.affinity === undefined ? [] : ['--backend-affinity', options.affinity]),
    '--db',
    options.db,
    '--port',
    String(port),
    '--log-level',
    'warn',
    '--backend-connections',
    String(options.connections),
  ];
  const log = openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...profileFlags(options.profileDir), BUILT_CLI, ...args], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  // up to a minute: on two busy cores (CI) a gateway's start has taken longer than the 30 s this waited before
  let answer = 'no answer';
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) break;
    answer = await fetch(`${url}/healthz`).then(
      async (response) => (response.ok ? 'ok' : `HTTP ${response.status} ${await response.text()}`),
      () => 'no answer',
    );
    if (answer === 'ok') return { url, child, pids: [child.pid!], stop: stopper(child) };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  const tail = readFileSync(options.logFile, 'utf8').split('\n').slice(-20).join('\n');
  throw new Error(
    `tokentap serve did not answer /healthz ok (last: ${answer.slice(0, 300)}; exit ${child.exitCode}); ${options.logFile} ends:\n${tail}`,
  );
}

/** Node flags that write a V8 CPU profile (`.cpuprofile`, for Chrome DevTools) into `dir` when the process exits. */
function profileFlags(dir: string | undefined): string[] {
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/** A process's resident memory now and at its peak, from Linux's /proc (null elsewhere or once it exited). */
export interface ResidentMemory {
  rssBytes: number;
  peakRssBytes: number;
}

/**
 * Reads VmRSS and VmHWM (the kernel's own high-water mark, so no peak between two samples is missed).
 *
 * @example readResidentMemory(gateway.child.pid!)?.rssBytes
 */
export function readResidentMemory(pid: number): ResidentMemory | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kilobytes = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rssBytes: kilobytes('VmRSS'), peakRssBytes: kilobytes('VmHWM') };
}

/** Event-loop delay of the gateway since the previous scrape (prom-client resets its histogram on each one). */
export interface EventLoopWindow {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** the main thread's V8 heap in use now (`nodejs_heap_size_used_bytes`): tells a leak from RSS the heap has not given back */
  heapUsedBytes: number;
}

/**
 * Scrapes the gateway's /metrics for prom-client's `nodejs_eventloop_lag_*` gauges (perf_hooks
 * monitorEventLoopDelay, 10 ms resolution, inside the gateway process) and its heap in use; null when /metrics does
 * not carry them.
 *
 * @example const window = await scrapeEventLoopDelay(gateway.url); // { p50Ms: 10.1, p99Ms: 12.3, maxMs: 40.2, heapUsedBytes: 5e7 }
 */
export async function scrapeEventLoopDelay(url: string): Promise<EventLoopWindow | null> {
  let text: string;
  try {
    const response = await fetch(`${url}/metrics`);
    if (!response.ok) return null;
    text = await response.text();
  } catch {
    return null;
  }
  const gauge = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  const window = {
    p50Ms: gauge('nodejs_eventloop_lag_p50_seconds') * 1000,
    p99Ms: gauge('nodejs_eventloop_lag_p99_seconds') * 1000,
    maxMs: gauge('nodejs_eventloop_lag_max_seconds') * 1000,
    heapUsedBytes: gauge('nodejs_heap_size_used_bytes'),
  };
  return Number.isNaN(window.p99Ms) ? null : window;
}

/**
 * The soft limit on open files of this process (children inherit it), from /proc/self/limits; null when unknown.
 *
 * @example openFilesLimit(); // 1024 on many desktops: too few for 1,000 streams
 */
export function openFilesLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? null : Number(soft);
  } catch {
    return null;
  }
}

/**
 * CPU seconds a process has used so far, all its threads (utime + stime from /proc/PID/stat, 100 ticks a second),
 * or one thread's (`thread`: its id; a process's main thread has the process's id); NaN elsewhere or once it exited.
 *
 * @example readCpuSeconds(gateway.child.pid!); // 12.4
 * @example readCpuSeconds(pid, pid); // the main thread alone: the event loop's share
 */
export function readCpuSeconds(pid: number, thread?: number): number {
  try {
    const fields =
      readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
