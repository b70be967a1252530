import { readCpuSeconds } from './load-processes.js';
import { Conversation, emptyTally, runClosedLoop, type CallShape, type CallTally } from './postgres-client.js';
import { machineCpuSeconds, type BenchPostgres } from './postgres-server.js';
import type { BenchSetup } from './postgres-setups.js';

/** CPU seconds one setup's rounds cost, by whom. */
export interface PhaseCpu {
  /** the setup's gateway processes, every thread (the recorder and the PostgreSQL connection threads included) */
  gateways: number;
  /** the PostgreSQL server's processes (NaN for a server the bench did not start) */
  postgres: number;
  simulator: number;
  /** this process: the clients */
  clients: number;
  /** every process on the machine, the bench's and everyone else's */
  machine: number;
}

/** One setup's figures over every round of the throughput phase. */
export interface ThroughputFigures {
  setup: BenchSetup;
  tally: CallTally;
  cpu: PhaseCpu;
}

export interface ThroughputOptions {
  setups: readonly BenchSetup[];
  shape: CallShape;
  /** concurrent conversations: the fixed load, the same for every setup */
  concurrency: number;
  rounds: number;
  /** seconds per setup per round */
  seconds: number;
  /** seconds per setup before the first round, not counted (JIT, connections, first sessions) */
  warmupSeconds: number;
  simPids: readonly number[];
  postgres: BenchPostgres;
  write: (line: string) => void;
}

const zeroCpu = (): PhaseCpu => ({ gateways: 0, postgres: 0, simulator: 0, clients: 0, machine: 0 });

function clientSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** Everyone's CPU seconds so far, as seen from here. */
function sampleCpu(setup: BenchSetup, options: ThroughputOptions): PhaseCpu {
  const sum = (pids: readonly number[]): number => pids.reduce((total, pid) => total + readCpuSeconds(pid), 0);
  return {
    gateways: sum(setup.gateways.map((gateway) => gateway.child.pid!)),
    postgres: options.postgres.cpuSeconds(),
    simulator: sum(options.simPids),
    clients: clientSeconds(),
    machine: machineCpuSeconds().busy,
  };
}

function addDelta(into: PhaseCpu, before: PhaseCpu, after: PhaseCpu): void {
  for (const key of Object.keys(into) as Array<keyof PhaseCpu>) into[key] += after[key] - before[key];
}

/**
 * Every setup under the same closed-loop load (`concurrency` conversations, spread over its gateways), for `seconds`
 * each, in `rounds` rounds whose order turns by one each round, so a noisy machine's drift falls on every setup
 * alike. Each setup keeps its conversations from round to round; CPU is read from /proc around each turn.
 *
 * @example const figures = await runThroughput({ setups, shape, concurrency: 32, rounds: 3, seconds: 8, warmupSeconds: 2, simPids, postgres, write });
 */
export async function runThroughput(options: ThroughputOptions): Promise<ThroughputFigures[]> {
  const conversations = new Map(
    options.setups.map((setup) => [
      setup,
      Array.from({ length: options.concurrency }, (_, index) => new Conversation(`${setup.name}-${index}`, options.shape)),
    ]),
  );
  const figures = new Map(options.setups.map((setup) => [setup, { setup, tally: emptyTally(), cpu: zeroCpu() }]));
  for (const setup of options.setups) await runClosedLoop(setup.targets, conversations.get(setup)!, options.warmupSeconds, emptyTally());
  for (let round = 0; round < options.rounds; round++) {
    const order = options.setups.map((_, index) => options.setups[(index + round) % options.setups.length]!);
    for (const setup of order) {
      const entry = figures.get(setup)!;
      const before = sampleCpu(setup, options);
      const calls = entry.tally.latenciesMs.length;
      await runClosedLoop(setup.targets, conversations.get(setup)!, options.seconds, entry.tally);
      addDelta(entry.cpu, before, sampleCpu(setup, options));
      options.write(
        `  round ${round + 1}/${options.rounds} ${setup.name}: ${((entry.tally.latenciesMs.length - calls) / options.seconds).toFixed(0)} calls/s`,
      );
    }
  }
  return [...figures.values()];
}
