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
 * `--replicas N` puts a fleet of N simulator processes (each its own port, `--sim-workers` processes each, default 1)
 * behind the gateway, one `--backend` flag each (`--flavours vllm,sglang` cycles their flavours; default all vllm),
 * and runs the load twice at once, as two phases on the same replicas (so a noisy machine slows both alike): sessions
 * sticky (`--backend-affinity session`) and round robin (`none`), each with its own gateway, sessions and database; from each store it prints calls/s, the calls per replica (min,
 * max, CV), the sessions that stayed on one replica and the prefix-cache share each replica would see, side by side.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openFilesLimit, startLoadSim, type LoadChild } from './load-processes.js';
import { formatLoadReport, type LoadRun } from './load-report.js';
import { measureFleetFigures } from './load-fleet-figures.js';
import { formatFleetComparison, type FleetPhase } from './load-fleet-report.js';
import { runLoadPhase, type LoadBackend } from './load-phase.js';

const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

type LoadFlags = LoadRun['config'] & { workDir: string | undefined; keep: boolean; reportSeconds: number; profileDir: string | undefined };

function readFlags(): LoadFlags {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string' },
      minutes: { type: 'string' },
      tokens: { type: 'string', default: '200' },
      rate: { type: 'string', default: '50' },
      'stream-interval': { type: 'string', default: '1' },
      'sim-workers': { type: 'string' },
      gateways: { type: 'string', default: '1' },
      replicas: { type: 'string', default: '0' },
      flavours: { type: 'string', default: 'vllm' },
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
  const replicas = Number(values.replicas);
  const flavours = values.flavours.split(',').map((flavour) => flavour.trim());
  if (!flavours.every((flavour) => flavour === 'vllm' || flavour === 'sglang'))
    throw new Error(`--flavours lists vllm and sglang, not ${values.flavours}`);
  return {
    sessions,
    minutes,
    tokens: Number(values.tokens),
    rate: Number(values.rate),
    streamInterval: Number(values['stream-interval']),
    // one simulator process tokenizes ~5 ms of long prompt per call: past ~150 calls/s it, not the gateway, would be measured
    simWorkers: Number(values['sim-workers'] ?? (replicas > 0 ? 1 : Math.max(1, Math.min(6, Math.floor(availableParallelism() / 3))))),
    gateways: Number(values.gateways),
    replicas,
    flavours: flavours as Array<'vllm' | 'sglang'>,
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

function checkFlags(flags: LoadFlags): void {
  if (!Number.isInteger(flags.simWorkers) || flags.simWorkers < 1)
    throw new Error(`--sim-workers must be a positive integer, not ${flags.simWorkers}`);
  if (!Number.isInteger(flags.gateways) || flags.gateways < 1) throw new Error(`--gateways must be a positive integer, not ${flags.gateways}`);
  if (!Number.isInteger(flags.replicas) || flags.replicas < 0) throw new Error(`--replicas must be a whole number, not ${flags.replicas}`);
  const limit = openFilesLimit();
  // the gateway holds a socket per harness and one per backend stream, plus the store, logs and pipes
  const needed = 2 * flags.sessions * (flags.replicas > 0 ? 2 : 1) + 200;
  if (limit !== null && limit < needed)
    write(`warning: ulimit -n is ${limit}; ${flags.sessions} sessions need about ${needed} (raise it: ulimit -n ${Math.max(needed, 65536)})`);
}

/** A failed phase: errors, lost calls, a wrong token count, or a gateway that did not exit cleanly. */
const failed = (run: LoadRun): boolean =>
  run.stats.errors > 0 || (run.verdict?.lost ?? 0) > 0 || (run.verdict?.wrongTokenCount ?? 0) > 0 || run.gatewayExit !== 0;

/** The simulators of a fleet: `--replicas` processes, flavours in turn; the ids `tokentap serve` gives them (`<flavour>-<n>`). */
async function startFleet(flags: LoadFlags, workDir: string): Promise<{ sims: LoadChild[]; backends: string[]; ids: string[] }> {
  const flavours = Array.from({ length: flags.replicas }, (_, index) => flags.flavours[index % flags.flavours.length]!);
  const sims = await Promise.all(
    flavours.map((flavour, index) =>
      startLoadSim({
        tokensPerSecond: flags.rate,
        replyTokens: flags.tokens,
        streamInterval: flags.streamInterval,
        workers: flags.simWorkers,
        flavour,
        logFile: join(workDir, `sim-${index + 1}.log`),
        ...(flags.profileDir === undefined ? {} : { profileDir: flags.profileDir }),
      }),
    ),
  );
  const ids = flavours.map((flavour, index) => `${flavour}-${flavours.slice(0, index + 1).filter((other) => other === flavour).length}`);
  return { sims, backends: sims.map((sim, index) => `${flavours[index]}=${sim.url}`), ids };
}

async function main(): Promise<number> {
  const flags = readFlags();
  checkFlags(flags);
  const workDir = flags.workDir ?? mkdtempSync(join(tmpdir(), 'tokentap-load-'));
  mkdirSync(workDir, { recursive: true });
  const phase = (backend: LoadBackend, db: string, logPrefix: string, simPids: number[], log = write): Promise<LoadRun> =>
    runLoadPhase({
      config: flags,
      reportSeconds: flags.reportSeconds,
      profileDir: flags.profileDir,
      backend,
      simPids,
      db: join(workDir, db),
      logPrefix: join(workDir, logPrefix),
      wholeBodyAnswers: flags.replicas > 0 && flags.flavours.includes('sglang'),
      write: log,
    });
  const runs: LoadRun[] = [];
  if (flags.replicas === 0) {
    const sim = await startLoadSim({
      tokensPerSecond: flags.rate,
      replyTokens: flags.tokens,
      streamInterval: flags.streamInterval,
      workers: flags.simWorkers,
      logFile: join(workDir, 'sim.log'),
      ...(flags.profileDir === undefined ? {} : { profileDir: flags.profileDir }),
    });
    runs.push(await phase({ backendUrl: sim.url }, 'load.db', 'gateway', sim.pids).finally(() => sim.stop()));
    write(formatLoadReport(runs[0]!));
  } else {
    const fleet = await startFleet(flags, workDir);
    const simPids = fleet.sims.flatMap((sim) => sim.pids);
    // both phases at once on the same replicas: a noisy machine slows them alike, so their ratio holds
    const phases = await Promise.all(
      (['session', 'none'] as const).map(async (affinity): Promise<FleetPhase> => {
        const log = (line: string): void => write(`[${affinity}] ${line}`);
        const run = await phase({ backends: fleet.backends, affinity }, `load-${affinity}.db`, `gateway-${affinity}`, simPids, log);
        return { affinity, run, figures: measureFleetFigures(join(workDir, `load-${affinity}.db`), fleet.ids) };
      }),
    ).finally(() => Promise.all(fleet.sims.map((sim) => sim.stop())));
    for (const { affinity, run } of phases) {
      runs.push(run);
      write(`phase --backend-affinity ${affinity}:`);
      write(formatLoadReport(run));
    }
    write(formatFleetComparison(phases[0]!, phases[1]!));
  }
  const anyFailed = runs.some(failed);
  if (anyFailed || flags.keep) write(`databases and logs kept in ${workDir}`);
  else rmSync(workDir, { recursive: true, force: true });
  return anyFailed ? 1 : 0;
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
