/**
 * `npm run bench:postgres [-- --quick]`: the PostgreSQL store against SQLite in one run (issue 17, "Benchmark"), on
 * a throw-away PostgreSQL started by scripts/start-postgres.sh (fsync on) or the server of `--postgres URL` (where it
 * drops and creates the databases bench_gateways and bench_export), with 2
 * `tokentap serve` processes on one SQLite file and 4 on one PostgreSQL database, in front of the fast simulator
 * (unpaced, bench/load-sim.ts):
 * - the commit before the last byte at c=1, first, while both stores are empty: each call sent to the simulator, the
 *   first SQLite gateway and the first PostgreSQL gateway in turn, one at a time; the extra p50 ms;
 * - throughput at a fixed load: `--concurrency` conversations in a closed loop against the simulator itself, the first
 *   1 and 2 SQLite gateways, the first 1, 2 and 4 PostgreSQL gateways, in interleaved rounds: calls/s, p50/p99 latency
 *   (request sent to last byte) and p99 added over direct, gateway CPU per call (/proc, every thread) and the
 *   PostgreSQL server's; no call lost (every call received in full is `ok` in its store with every token);
 * - storage per turn: what each gateways' store holds per call beyond its empty schema (the same calls on both), and
 *   the same for a synthetic store written with one seed into both engines (bench/make-store.ts);
 * - export MB/s from that synthetic store on each engine, through export/export-dataset.ts (`tokentap export`).
 * Prints the table, per-core sizing and every target as a ratio with pass/MISS; exits 1 only on an error or a lost
 * call (a missed target is a finding). `--quick` is a short run (about a minute on an idle 2-core machine).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startLoadSim, type LoadChild } from './load-processes.js';
import type { CallShape } from './postgres-client.js';
import { measureEngineCommits, measureFdatasyncMs } from './postgres-commit.js';
import { formatPostgresReport, type PostgresBenchResult } from './postgres-report.js';
import { startBenchPostgres } from './postgres-server.js';
import { directSetup, fleetSetup, startFleet } from './postgres-setups.js';
import { commitStage, exportStage, finishFleets, freeCores } from './postgres-stages.js';
import { runThroughput } from './postgres-throughput.js';

const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function readFlags() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      tokens: { type: 'string', default: '64' },
      'system-tokens': { type: 'string', default: '1000' },
      turns: { type: 'string', default: '8' },
      'commit-sessions': { type: 'string' },
      'export-sessions': { type: 'string' },
      'export-turns': { type: 'string', default: '10' },
      postgres: { type: 'string' },
      'work-dir': { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const pick = (value: string | undefined, quick: number, full: number): number => Number(value ?? (values.quick ? quick : full));
  return {
    quick: values.quick,
    concurrency: pick(values.concurrency, 16, 32),
    rounds: pick(values.rounds, 1, 3),
    seconds: pick(values.seconds, 3, 8),
    warmupSeconds: values.quick ? 1 : 2,
    tokens: Number(values.tokens),
    systemTokens: Number(values['system-tokens']),
    turns: Number(values.turns),
    commitSessions: pick(values['commit-sessions'], 4, 21),
    exportSessions: pick(values['export-sessions'], 40, 300),
    exportTurns: Number(values['export-turns']),
    exportRounds: values.quick ? 1 : 2,
    postgresUrl: values.postgres,
    workDir: values['work-dir'] ?? newWorkDir(),
    keep: values.keep,
  };
}

/** A temporary folder the `postgres` user may pass through too: its cluster lives inside when the bench runs as root. */
function newWorkDir(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tokentap-bench-postgres-'));
  chmodSync(folder, 0o755);
  return folder;
}

/** Prints a stage's start with the seconds since the bench began. */
function createStageLog(): (text: string) => void {
  const startedAt = performance.now();
  return (text) => write(`[${((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${text}`);
}

async function main(): Promise<number> {
  const flags = readFlags();
  const stage = createStageLog();
  const shape: CallShape = { tokens: flags.tokens, systemPromptBytes: flags.systemTokens * 4, turns: flags.turns };
  const freeCoresBefore = await freeCores(flags.quick ? 1 : 2);
  stage('starting PostgreSQL, the simulator, 2 gateways on one SQLite file and 4 on one PostgreSQL database');
  const postgres = startBenchPostgres({
    folder: join(flags.workDir, 'postgres'),
    ...(flags.postgresUrl === undefined ? {} : { url: flags.postgresUrl }),
  });
  const children: LoadChild[] = [];
  let problems: number;
  try {
    const sim = await startLoadSim({
      tokensPerSecond: 0,
      replyTokens: flags.tokens,
      streamInterval: 1,
      workers: 1,
      logFile: join(flags.workDir, 'sim.log'),
    });
    children.push(sim);
    const fleetOptions = { simUrl: sim.url, postgres, workDir: flags.workDir, connections: flags.concurrency };
    const [sqlite, pg] = await Promise.all([
      startFleet({ ...fleetOptions, engine: 'sqlite', gateways: 2 }),
      startFleet({ ...fleetOptions, engine: 'postgres', gateways: 4 }),
    ]);
    children.push(...sqlite.gateways, ...pg.gateways);
    const direct = directSetup(sim.url, flags.concurrency);
    const setups = [direct, fleetSetup(sqlite, 1), fleetSetup(sqlite, 2), fleetSetup(pg, 1), fleetSetup(pg, 2), fleetSetup(pg, 4)];
    stage(`c=1: ${flags.commitSessions} sessions x ${flags.turns} calls, each sent to direct, SQLite and PostgreSQL (1 gateway each)`);
    const commit = await commitStage(flags.commitSessions, shape, [direct, setups[1]!, setups[3]!]);
    stage(`throughput: ${flags.rounds} round(s) x ${flags.seconds} s per setup at ${flags.concurrency} concurrent conversations`);
    const { concurrency, rounds, seconds, warmupSeconds } = flags;
    const figures = await runThroughput({ setups, shape, concurrency, rounds, seconds, warmupSeconds, simPids: sim.pids, postgres, write });
    await direct.targets[0]!.pool.close();
    stage('stopping the gateways; checking every received call against its store');
    const finished = await finishFleets({ sqlite, postgres: pg }, figures, commit.tallies);
    stage(`export: a synthetic store of ${flags.exportSessions} sessions x ${flags.exportTurns} turns in each engine`);
    const exportOptions = { sessions: flags.exportSessions, turns: flags.exportTurns, rounds: flags.exportRounds, workDir: flags.workDir };
    // a failed export stage still leaves the figures measured before it worth printing
    const exported = await exportStage(exportOptions, postgres).catch((error: unknown) => {
      write(`the export stage failed: ${(error as Error).stack ?? String(error)}`);
      return null;
    });
    problems = finished.problems + (exported === null ? 1 : 0);
    const result: PostgresBenchResult = {
      config: flags,
      machine: {
        cores: availableParallelism(),
        freeCoresBefore,
        loadAverage: loadavg()[0]!,
        fdatasyncMs: measureFdatasyncMs(flags.workDir),
        engineCommits: await measureEngineCommits(postgres.createDatabase('bench_engine_commits'), join(flags.workDir, 'engine-commits.db')),
      },
      throughput: finished.rows,
      commit: commit.commit,
      storage: { recorded: finished.recorded, synthetic: exported?.synthetic ?? null },
      exports: exported?.exports ?? [],
      writeCallsPerSecond: exported?.writeCallsPerSecond ?? null,
      gatewayExits: finished.exits,
    };
    stage('done\n');
    write(formatPostgresReport(result));
  } finally {
    // a failed run leaves nothing behind: a child still running is ended
    await Promise.all(children.map((child) => child.stop()));
    postgres.stop();
  }
  if (problems > 0 || flags.keep) write(`databases and logs kept in ${flags.workDir}`);
  else rmSync(flags.workDir, { recursive: true, force: true });
  return problems > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`postgres bench: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
