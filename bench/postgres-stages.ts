/** The stages of bench/postgres.ts between starting its processes and printing its report, each returning its figures. */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BENCH_STORE, type BenchStoreParams } from './make-store.js';
import { percentile } from './percentile.js';
import type { CallShape, CallTally } from './postgres-client.js';
import { runCommitLatency } from './postgres-commit.js';
import { fillEngineStore, measureExports } from './postgres-export.js';
import type { PostgresBenchResult, ThroughputRow } from './postgres-report.js';
import { machineCpuSeconds, type BenchPostgres } from './postgres-server.js';
import { stopFleet, storedBytes, verifyFleet, type BenchEngine, type BenchFleet, type BenchSetup } from './postgres-setups.js';
import type { ThroughputFigures } from './postgres-throughput.js';

/** Free cores before the run: the idle share of every core over `seconds` (/proc/stat). */
export async function freeCores(seconds: number): Promise<number> {
  const before = machineCpuSeconds();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = machineCpuSeconds();
  const total = after.total - before.total;
  return (availableParallelism() * (total - (after.busy - before.busy))) / total;
}

function toRow(figures: ThroughputFigures, lost: number | null): ThroughputRow {
  const { setup, tally, cpu } = figures;
  return {
    name: setup.name,
    engine: setup.engine,
    gateways: setup.gateways.length,
    calls: tally.latenciesMs.length,
    seconds: tally.seconds,
    p50Ms: percentile(tally.latenciesMs, 0.5),
    p99Ms: percentile(tally.latenciesMs, 0.99),
    errors: tally.errors,
    errorSamples: tally.errorSamples,
    lost,
    cpu,
  };
}

/** c=1 on the first gateway of each fleet, while both stores are still empty: both record the same requests. */
export async function commitStage(sessions: number, shape: CallShape, setups: [BenchSetup, BenchSetup, BenchSetup]) {
  const tallies = await runCommitLatency({ setups, shape, sessions });
  const commit = Object.fromEntries(
    (['direct', 'sqlite', 'postgres'] as const).map((name, index) => {
      const tally = tallies[index]!;
      return [
        name,
        {
          p50Ms: percentile(tally.latenciesMs, 0.5),
          p99Ms: percentile(tally.latenciesMs, 0.99),
          calls: tally.latenciesMs.length,
          errors: tally.errors,
        },
      ];
    }),
  ) as PostgresBenchResult['commit'];
  return { commit, tallies };
}

/**
 * Stops both fleets (their exit codes after SIGTERM: 0 each), then checks each setup's received calls (the c=1 calls with the 1-gateway setups') against its
 * store and reads what each store holds per call.
 */
export async function finishFleets(fleets: Record<BenchEngine, BenchFleet>, figures: ThroughputFigures[], commitTallies: CallTally[]) {
  const exits = { sqlite: await stopFleet(fleets.sqlite), postgres: await stopFleet(fleets.postgres) };
  let problems = [...exits.sqlite, ...exits.postgres].filter((code) => code !== 0).length;
  problems += commitTallies.reduce((sum, tally) => sum + tally.errors, 0);
  const rows = figures.map((entry) => {
    const { engine, name } = entry.setup;
    if (engine === 'direct') return toRow(entry, null);
    const commitIndex = engine === 'sqlite' ? 1 : 2;
    const received = [...entry.tally.received, ...(name.endsWith('-1') ? commitTallies[commitIndex]!.received : [])];
    const verdict = verifyFleet(fleets[engine], received);
    problems += entry.tally.errors + verdict.lost + verdict.wrongTokenCount;
    return toRow(entry, verdict.lost + verdict.wrongTokenCount);
  });
  return { rows, problems, exits, recorded: { sqlite: storedBytes(fleets.sqlite), postgres: storedBytes(fleets.postgres) } };
}

/** The synthetic store written into both engines with one seed, then exported from each. */
export async function exportStage(options: { sessions: number; turns: number; rounds: number; workDir: string }, postgres: BenchPostgres) {
  const params: BenchStoreParams = {
    ...DEFAULT_BENCH_STORE,
    sessions: options.sessions,
    turns: options.turns,
    systemTokens: 1024,
    turnTokens: 200,
  };
  const sqlite = fillEngineStore('sqlite', join(options.workDir, 'export.db'), params);
  const pg = fillEngineStore('postgres', postgres.createDatabase('bench_export'), params);
  const exports = await measureExports([sqlite, pg], options.rounds, options.workDir);
  return {
    synthetic: { sqlite, postgres: pg },
    exports,
    writeCallsPerSecond: { sqlite: sqlite.calls / sqlite.writeSeconds, postgres: pg.calls / pg.writeSeconds },
  };
}
