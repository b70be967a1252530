/**
 * `npm run bench:load -- --sessions 1000 --minutes 5 --tokens 200 --rate 50`: holds that many concurrent streaming
 * sessions on loopback against `tokentap serve` (a child process, recording as in production) in front of the
 * simulator in fast mode (another child process), each session a loop of multi-turn calls with a long system prompt
 * and a growing history, every call streaming `--tokens` tokens at `--rate` tokens per second. Prints a line every
 * 30 s and, at the end: calls completed, errors, lost calls (every call a client received in full must be `ok` in
 * the store with as many completion ids), the gateway's RSS at start, end and peak, its event-loop delay, and the
 * clients' time to first token and the gaps between stream events (docs/reliability.md, promise 4). `--stream-interval N`
 * makes the simulator send N tokens per event after the first, as vLLM's `--stream-interval` does. `--sim-workers N`
 * runs the simulator as N processes behind one port (default: a third of the cores, 1 to 6). `--gateways N` runs N
 * `tokentap serve` processes on one database, session i talking to gateway i mod N (memory and CPU are then their sums,
 * the event-loop window the worst of them). Exits 1 on any error or lost
 * call. `--short` is a quick run (100 sessions, 30 s) unless --sessions / --minutes say otherwise. `--profile DIR` writes
 * V8 CPU profiles of the gateway and the simulator into DIR (open them in Chrome DevTools).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import {
  openFilesLimit,
  readCpuSeconds,
  readResidentMemory,
  scrapeEventLoopDelay,
  startLoadGateway,
  startLoadSim,
  type EventLoopWindow,
  type ResidentMemory,
} from './load-processes.js';
import { LoadStats, runLoadSession } from './load-session.js';
import { formatLoadReport, formatProgressLine, type LoadRun } from './load-report.js';
import { verifyReceivedCalls } from './load-verify.js';

const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** CPU seconds of several processes together (`mainThreads`: their main threads alone). */
const sumCpuSeconds = (pids: number[], mainThreads = false): number =>
  pids.reduce((sum, pid) => sum + readCpuSeconds(pid, mainThreads ? pid : undefined), 0);

/** RSS of several processes together, and the sum of their peaks; null once one is gone. */
function sumMemory(pids: number[]): ResidentMemory | null {
  const each = pids.map(readResidentMemory);
  if (each.some((memory) => memory === null)) return null;
  return {
    rssBytes: each.reduce((sum, memory) => sum + memory!.rssBytes, 0),
    peakRssBytes: each.reduce((sum, memory) => sum + memory!.peakRssBytes, 0),
  };
}

/** Every gateway's event-loop window since the last scrape: the worst p99 of them, the heaps in use summed. */
async function scrapeWorst(urls: string[]): Promise<EventLoopWindow | null> {
  const windows = (await Promise.all(urls.map(scrapeEventLoopDelay))).filter((window): window is EventLoopWindow => window !== null);
  if (windows.length === 0) return null;
  const worst = windows.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
  return { ...worst, heapUsedBytes: windows.reduce((sum, window) => sum + window.heapUsedBytes, 0) };
}

function readFlags(): LoadRun['config'] & { workDir: string | undefined; keep: boolean; reportSeconds: number; profileDir: string | undefined } {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string' },
      minutes: { type: 'string' },
      tokens: { type: 'string', default: '200' },
      rate: { type: 'string', default: '50' },
      'stream-interval': { type: 'string', default: '1' },
      'sim-workers': { type: 'string' },
      gateways: { type: 'string', default: '1' },
      'system-tokens': { type: 'string', default: '6000' },
      'max-prompt-tokens': { type: 'string', default: '30000' },
      'ramp-seconds': { type: 'string' },
      'report-seconds': { type: 'string', default: '30' },
      short: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      keep: { type: 'boolean', default: false },
      profile: { type: 'string' },
    },
  });
  const sessions = Number(values.sessions ?? (values.short ? 100 : 1000));
  const minutes = Number(values.minutes ?? (values.short ? 0.5 : 5));
  return {
    sessions,
    minutes,
    tokens: Number(values.tokens),
    rate: Number(values.rate),
    streamInterval: Number(values['stream-interval']),
    // one simulator process tokenizes ~5 ms of long prompt per call: past ~150 calls/s it, not the gateway, would be measured
    simWorkers: Number(values['sim-workers'] ?? Math.max(1, Math.min(6, Math.floor(availableParallelism() / 3)))),
    gateways: Number(values.gateways),
    systemTokens: Number(values['system-tokens']),
    maxPromptTokens: Number(values['max-prompt-tokens']),
    // starting a thousand sessions in the same millisecond measures the herd, not the steady state
    rampSeconds: Number(values['ramp-seconds'] ?? Math.min(10, minutes * 6)),
    reportSeconds: Number(values['report-seconds']),
    workDir: values['work-dir'],
    keep: values.keep,
    profileDir: values.profile,
  };
}

async function main(): Promise<number> {
  const flags = readFlags();
  if (!Number.isInteger(flags.simWorkers) || flags.simWorkers < 1)
    throw new Error(`--sim-workers must be a positive integer, not ${flags.simWorkers}`);
  if (!Number.isInteger(flags.gateways) || flags.gateways < 1) throw new Error(`--gateways must be a positive integer, not ${flags.gateways}`);
  const limit = openFilesLimit();
  // the gateway holds a socket per harness and one per backend stream, plus the store, logs and pipes
  const needed = 2 * flags.sessions + 200;
  if (limit !== null && limit < needed)
    write(`warning: ulimit -n is ${limit}; ${flags.sessions} sessions need about ${needed} (raise it: ulimit -n ${Math.max(needed, 65536)})`);
  const workDir = flags.workDir ?? mkdtempSync(join(tmpdir(), 'tokentap-load-'));
  mkdirSync(workDir, { recursive: true });
  const sim = await startLoadSim({
    tokensPerSecond: flags.rate,
    replyTokens: flags.tokens,
    streamInterval: flags.streamInterval,
    workers: flags.simWorkers,
    logFile: join(workDir, 'sim.log'),
    ...(flags.profileDir === undefined ? {} : { profileDir: flags.profileDir }),
  });
  const db = join(workDir, 'load.db');
  const perGateway = Math.ceil(flags.sessions / flags.gateways);
  // started at once on a fresh file: they race to create and migrate it, as a fleet's gateways would
  const gateways = await Promise.all(
    Array.from({ length: flags.gateways }, (_, index) =>
      startLoadGateway({
        backendUrl: sim.url,
        db,
        connections: Math.max(256, perGateway),
        logFile: join(workDir, flags.gateways === 1 ? 'gateway.log' : `gateway-${index + 1}.log`),
        ...(flags.profileDir === undefined ? {} : { profileDir: flags.profileDir }),
      }),
    ),
  );
  const pids = gateways.map((gateway) => gateway.child.pid!);
  const urls = gateways.map((gateway) => gateway.url);
  const pools = gateways.map((gateway) => new Pool(gateway.url, { connections: perGateway }));
  const stats = new LoadStats();
  const run: LoadRun = {
    config: flags,
    stats,
    windows: [],
    gatewayRssStart: sumMemory(pids)?.rssBytes ?? Number.NaN,
    gatewayRssEnd: Number.NaN,
    gatewayRssPeak: Number.NaN,
    gatewayCpuSeconds: -sumCpuSeconds(pids),
    gatewayMainThreadCpuSeconds: -sumCpuSeconds(pids, true),
    simCpuSeconds: -sumCpuSeconds(sim.pids),
    clientCpuSeconds: -cpuSeconds(),
    seconds: 0,
    loadStart: loadavg()[0]!,
    loadEnd: Number.NaN,
    cores: availableParallelism(),
    verdict: null,
    gatewayExit: null,
  };
  // the first scrape starts prom-client's event-loop histogram; each later one reads the window since the last
  await scrapeWorst(urls);
  const startedAt = performance.now();
  const deadline = startedAt + flags.minutes * 60_000;
  const rampMs = flags.rampSeconds * 1000;
  const sessions = Array.from({ length: flags.sessions }, async (_, index) => {
    await new Promise((resolve) => setTimeout(resolve, (rampMs * index) / flags.sessions));
    await runLoadSession({
      pool: pools[index % pools.length]!,
      index,
      tokens: flags.tokens,
      streamInterval: flags.streamInterval,
      systemPromptBytes: flags.systemTokens * 4,
      maxBodyBytes: flags.maxPromptTokens * 4,
      deadline,
      stats,
    });
  });
  let previous = { at: startedAt, calls: 0, tokens: 0 };
  const progress = setInterval(() => {
    void scrapeWorst(urls).then((window: EventLoopWindow | null) => {
      if (window !== null) run.windows.push(window);
      const now = { at: performance.now(), calls: stats.received.length, tokens: stats.tokens };
      write(
        formatProgressLine(
          run,
          (now.at - startedAt) / 1000,
          { seconds: (now.at - previous.at) / 1000, calls: now.calls - previous.calls, tokens: now.tokens - previous.tokens },
          window,
          sumMemory(pids),
        ),
      );
      previous = now;
    });
  }, flags.reportSeconds * 1000);
  await Promise.all(sessions);
  clearInterval(progress);
  run.seconds = (performance.now() - startedAt) / 1000;
  const lastWindow = await scrapeWorst(urls);
  if (lastWindow !== null) run.windows.push(lastWindow);
  const memory = sumMemory(pids);
  [run.gatewayRssEnd, run.gatewayRssPeak] = [memory?.rssBytes ?? Number.NaN, memory?.peakRssBytes ?? Number.NaN];
  run.gatewayCpuSeconds += sumCpuSeconds(pids);
  run.gatewayMainThreadCpuSeconds += sumCpuSeconds(pids, true);
  run.simCpuSeconds += sumCpuSeconds(sim.pids);
  run.clientCpuSeconds += cpuSeconds();
  run.loadEnd = loadavg()[0]!;
  await Promise.all(pools.map((pool) => pool.close()));
  const exits = await Promise.all(gateways.map((gateway) => gateway.stop()));
  run.gatewayExit = exits.find((code) => code !== 0) ?? 0;
  await sim.stop();
  run.verdict = verifyReceivedCalls(db, stats.received);
  write(formatLoadReport(run));
  const failed = stats.errors > 0 || run.verdict.lost > 0 || run.verdict.wrongTokenCount > 0 || run.gatewayExit !== 0;
  if (failed || flags.keep) write(`database and logs kept in ${workDir}`);
  else rmSync(workDir, { recursive: true, force: true });
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`load: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
