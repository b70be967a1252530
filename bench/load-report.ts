import type { RecordableHistogram } from 'node:perf_hooks';
import type { EventLoopWindow, ResidentMemory } from './load-processes.js';
import type { LoadStats } from './load-session.js';
import type { LoadVerdict } from './load-verify.js';

/** Everything a load run measured, for its report. */
export interface LoadRun {
  config: {
    sessions: number;
    minutes: number;
    tokens: number;
    rate: number;
    streamInterval: number;
    simWorkers: number;
    gateways: number;
    /** simulator replicas behind the gateway as a fleet (`--replicas`), each of `simWorkers` processes; 0: one `--backend-url` */
    replicas: number;
    /** the replicas' flavours, cycled (`--flavours vllm,sglang`) */
    flavours: Array<'vllm' | 'sglang'>;
    systemTokens: number;
    maxPromptTokens: number;
    rampSeconds: number;
  };
  stats: LoadStats;
  /** the gateway's event-loop delay, one window per /metrics scrape */
  windows: EventLoopWindow[];
  gatewayRssStart: number;
  gatewayRssEnd: number;
  /** VmHWM: the kernel's high-water mark over the gateway's whole life */
  gatewayRssPeak: number;
  /** CPU seconds used during the run, all threads */
  gatewayCpuSeconds: number;
  /** CPU seconds of the gateway's main thread (its event loop): the one share that cannot spread over cores */
  gatewayMainThreadCpuSeconds: number;
  simCpuSeconds: number;
  /** CPU seconds of this process: the clients */
  clientCpuSeconds: number;
  /** wall seconds from the first session's start to the last call's end */
  seconds: number;
  loadStart: number;
  loadEnd: number;
  cores: number;
  verdict: LoadVerdict | null;
  /** exit code of `tokentap serve` after SIGTERM */
  gatewayExit: number | null;
}

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const milliseconds = (histogram: RecordableHistogram, percentile: number): string =>
  histogram.count === 0 ? 'n/a' : (histogram.percentile(percentile) / 1000).toFixed(1);

/**
 * One progress line: the last interval's rates and the run's latencies so far.
 *
 * @example write(formatProgressLine(run, 30, { seconds: 30, calls: 7000, tokens: 1_400_000 }, window, memory));
 */
export function formatProgressLine(
  run: LoadRun,
  elapsedSeconds: number,
  interval: { seconds: number; calls: number; tokens: number },
  window: EventLoopWindow | null,
  memory: ResidentMemory | null,
): string {
  const { stats } = run;
  return [
    `[${elapsedSeconds.toFixed(0).padStart(4)} s]`,
    `calls ${stats.received.length} (${(interval.calls / interval.seconds).toFixed(1)}/s)`,
    `errors ${stats.errors}`,
    `in flight ${stats.inFlight}`,
    `tokens/s ${(interval.tokens / interval.seconds).toFixed(0)} (target ${run.config.sessions * run.config.rate})`,
    `gateway RSS ${memory === null ? 'n/a' : megabytes(memory.rssBytes)}, heap ${window === null ? 'n/a' : megabytes(window.heapUsedBytes)}`,
    `event-loop p99 ${window === null ? 'n/a' : `${window.p99Ms.toFixed(1)} ms`}`,
    `TTFT p50/p99 ${milliseconds(stats.timeToFirstToken, 50)}/${milliseconds(stats.timeToFirstToken, 99)} ms`,
    `inter-event p50/p99 ${milliseconds(stats.interEvent, 50)}/${milliseconds(stats.interEvent, 99)} ms`,
  ].join(' | ');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * The final report: configuration, machine, and every figure of promise 4.
 *
 * @example write(formatLoadReport(run));
 */
export function formatLoadReport(run: LoadRun): string {
  const { config, stats, verdict } = run;
  const p99s = run.windows.map((window) => window.p99Ms);
  const eventLoop =
    run.windows.length === 0
      ? "n/a (the gateway's /metrics has no nodejs_eventloop_lag_* gauges)"
      : `p99 per window: median ${median(p99s).toFixed(1)} ms, worst ${Math.max(...p99s).toFixed(1)} ms; p50 median ${median(run.windows.map((window) => window.p50Ms)).toFixed(1)} ms; max ${Math.max(...run.windows.map((window) => window.maxMs)).toFixed(1)} ms (${run.windows.length} windows; prom-client samples every 10 ms and counts that interval: an idle loop reads about 10 ms)`;
  const lost =
    verdict === null
      ? 'not checked'
      : `${verdict.lost} (${stats.received.length} received in full; ${verdict.verified} ok in the store with as many completion ids; ${verdict.wrongTokenCount} with another count; store: ${verdict.rowsInStore} calls, ${verdict.sessionsInStore} sessions, ${megabytes(verdict.bytesOnDisk)})`;
  return [
    `load: ${config.sessions} sessions x ${config.minutes} min (ramp ${config.rampSeconds} s), ${config.tokens} tokens per call at ${config.rate || 'unpaced'} tokens/s, ${config.streamInterval === 1 ? 'one token per stream event' : `stream interval ${config.streamInterval} (the first token alone, then ${config.streamInterval} per event)`}, system prompt ${config.systemTokens} tokens + growing history (new conversation past ${config.maxPromptTokens} prompt tokens)${config.gateways === 1 ? '' : `; ${config.gateways} gateways on one database (their RSS and CPU summed, the worst event loop)`}${config.replicas === 0 ? '' : `; a fleet of ${config.replicas} simulator replicas (${config.flavours.join(', ')} in turn), shared with the other phase running at the same time (simulator, client CPU and load average are both phases')`}`,
    `machine:            ${run.cores} cores, load average ${run.loadStart.toFixed(1)} at start, ${run.loadEnd.toFixed(1)} at end`,
    `wall time:          ${run.seconds.toFixed(1)} s`,
    `calls completed:    ${stats.received.length} (${(stats.received.length / run.seconds).toFixed(1)}/s)`,
    `errors:             ${stats.errors}`,
    ...stats.errorSamples.map((sample) => `  ${sample}`),
    `lost calls:         ${lost}`,
    ...(verdict?.samples ?? []).map((sample) => `  ${sample}`),
    `tokens received:    ${stats.tokens} (${(stats.tokens / run.seconds).toFixed(0)}/s; ${config.sessions} streams at ${config.rate}/s would be ${config.sessions * config.rate}/s) in ${stats.events} content events (${(stats.events / run.seconds).toFixed(0)}/s)`,
    `gateway RSS:        start ${megabytes(run.gatewayRssStart)}, end ${megabytes(run.gatewayRssEnd)}, peak ${megabytes(run.gatewayRssPeak)} (VmHWM); main-thread heap in use at the end ${run.windows.length === 0 ? 'n/a' : megabytes(run.windows.at(-1)!.heapUsedBytes)}`,
    `CPU:                gateway ${run.gatewayCpuSeconds.toFixed(1)} s (${(run.gatewayCpuSeconds / run.seconds).toFixed(2)} cores; ${((run.gatewayCpuSeconds * 1e6) / Math.max(1, stats.tokens)).toFixed(0)} us per token, ${((run.gatewayCpuSeconds * 1e6) / Math.max(1, stats.events)).toFixed(0)} us per event, per-call work included; main thread ${(run.gatewayMainThreadCpuSeconds / run.seconds).toFixed(2)} cores, ${((run.gatewayMainThreadCpuSeconds * 1e3) / Math.max(1, stats.received.length)).toFixed(1)} ms per call), simulator ${run.simCpuSeconds.toFixed(1)} s (${(run.simCpuSeconds / run.seconds).toFixed(2)} cores, ${Math.max(1, config.replicas) * config.simWorkers} process${Math.max(1, config.replicas) * config.simWorkers === 1 ? '' : 'es'}), clients ${run.clientCpuSeconds.toFixed(1)} s (${(run.clientCpuSeconds / run.seconds).toFixed(2)} cores)`,
    `event-loop delay:   ${eventLoop}`,
    `TTFT:               p50 ${milliseconds(stats.timeToFirstToken, 50)} ms, p99 ${milliseconds(stats.timeToFirstToken, 99)} ms`,
    `inter-event:        p50 ${milliseconds(stats.interEvent, 50)} ms, p99 ${milliseconds(stats.interEvent, 99)} ms (${(1000 * config.streamInterval) / config.rate} ms at the simulator)`,
    `gateway exit:       ${run.gatewayExit} after SIGTERM`,
  ].join('\n');
}
