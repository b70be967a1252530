import { loadavg, availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import {
  readCpuSeconds,
  readResidentMemory,
  scrapeEventLoopDelay,
  startLoadGateway,
  type EventLoopWindow,
  type ResidentMemory,
} from './load-processes.js';
import { LoadStats, runLoadSession } from './load-session.js';
import { formatProgressLine, type LoadRun } from './load-report.js';
import { verifyReceivedCalls } from './load-verify.js';

/** Where one phase's gateways send their calls: the one simulator URL, or a fleet of replicas placed with `affinity`. */
export type LoadBackend = { backendUrl: string } | { backends: string[]; affinity: 'session' | 'none' };

export interface LoadPhaseOptions {
  config: LoadRun['config'];
  reportSeconds: number;
  profileDir: string | undefined;
  backend: LoadBackend;
  /** the simulator processes, whose CPU the phase counts */
  simPids: number[];
  /** this phase's own database */
  db: string;
  /** the gateways' log files: `${logPrefix}.log`, or `${logPrefix}-<n>.log` for several */
  logPrefix: string;
  /** some replica answers a streamed chat call from a whole body (SGLang): one content event is a whole answer too */
  wholeBodyAnswers: boolean;
  write: (line: string) => void;
}

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

/**
 * One measured load: starts `config.gateways` `tokentap serve` processes on a fresh `db`, runs every session until
 * `config.minutes` pass (printing a progress line every `reportSeconds`), stops the gateways and checks the store
 * against what the clients received.
 *
 * @example const run = await runLoadPhase({ config, reportSeconds: 30, profileDir: undefined, backend: { backendUrl: sim.url }, simPids: sim.pids, db, logPrefix, wholeBodyAnswers: false, write });
 */
export async function runLoadPhase(options: LoadPhaseOptions): Promise<LoadRun> {
  const { config, write } = options;
  const perGateway = Math.ceil(config.sessions / config.gateways);
  // started at once on a fresh file: they race to create and migrate it, as a fleet's gateways would
  const gateways = await Promise.all(
    Array.from({ length: config.gateways }, (_, index) =>
      startLoadGateway({
        ...options.backend,
        db: options.db,
        connections: Math.max(256, perGateway),
        logFile: config.gateways === 1 ? `${options.logPrefix}.log` : `${options.logPrefix}-${index + 1}.log`,
        ...(options.profileDir === undefined ? {} : { profileDir: options.profileDir }),
      }),
    ),
  );
  const pids = gateways.map((gateway) => gateway.child.pid!);
  const urls = gateways.map((gateway) => gateway.url);
  const pools = gateways.map((gateway) => new Pool(gateway.url, { connections: perGateway }));
  const stats = new LoadStats();
  const run: LoadRun = {
    config,
    stats,
    windows: [],
    gatewayRssStart: sumMemory(pids)?.rssBytes ?? Number.NaN,
    gatewayRssEnd: Number.NaN,
    gatewayRssPeak: Number.NaN,
    gatewayCpuSeconds: -sumCpuSeconds(pids),
    gatewayMainThreadCpuSeconds: -sumCpuSeconds(pids, true),
    simCpuSeconds: -sumCpuSeconds(options.simPids),
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
  const deadline = startedAt + config.minutes * 60_000;
  const rampMs = config.rampSeconds * 1000;
  const sessions = Array.from({ length: config.sessions }, async (_, index) => {
    await new Promise((resolve) => setTimeout(resolve, (rampMs * index) / config.sessions));
    await runLoadSession({
      pool: pools[index % pools.length]!,
      index,
      tokens: config.tokens,
      streamInterval: config.streamInterval,
      systemPromptBytes: config.systemTokens * 4,
      maxBodyBytes: config.maxPromptTokens * 4,
      deadline,
      stats,
      wholeBodyAnswers: options.wholeBodyAnswers,
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
  }, options.reportSeconds * 1000);
  await Promise.all(sessions);
  clearInterval(progress);
  run.seconds = (performance.now() - startedAt) / 1000;
  const lastWindow = await scrapeWorst(urls);
  if (lastWindow !== null) run.windows.push(lastWindow);
  const memory = sumMemory(pids);
  [run.gatewayRssEnd, run.gatewayRssPeak] = [memory?.rssBytes ?? Number.NaN, memory?.peakRssBytes ?? Number.NaN];
  run.gatewayCpuSeconds += sumCpuSeconds(pids);
  run.gatewayMainThreadCpuSeconds += sumCpuSeconds(pids, true);
  run.simCpuSeconds += sumCpuSeconds(options.simPids);
  run.clientCpuSeconds += cpuSeconds();
  run.loadEnd = loadavg()[0]!;
  await Promise.all(pools.map((pool) => pool.close()));
  const exits = await Promise.all(gateways.map((gateway) => gateway.stop()));
  run.gatewayExit = exits.find((code) => code !== 0) ?? 0;
  run.verdict = verifyReceivedCalls(options.db, stats.received);
  return run;
}
