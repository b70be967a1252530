/** p50 ms of one autocommitted 2 KB insert on each engine alone (a plain client), after each pause of `gapsMs`. */
export interface EngineCommitFigures {
  gapsMs: number[];
  postgres: number[];
  /** the same on PostgreSQL with synchronous_commit off: the commit without its WAL flush (never the store's setting) */
  postgresUnsynced: number[];
  sqlite: number[];
}

/** One setup of the throughput phase, summed over its rounds (CPU in seconds, from /proc). */
export interface ThroughputRow {
  name: string;
  engine: 'sqlite' | 'postgres' | 'direct';
  gateways: number;
  calls: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** the first few failures, as the clients saw them */
  errorSamples: string[];
  /** received calls the store does not hold `ok` with every token (null: not checked, the simulator) */
  lost: number | null;
  cpu: { gateways: number; postgres: number; simulator: number; clients: number; machine: number };
}

export interface EngineBytes {
  bytes: number;
  calls: number;
}

export interface PostgresBenchResult {
  config: {
    concurrency: number;
    rounds: number;
    seconds: number;
    tokens: number;
    systemTokens: number;
    turns: number;
    commitSessions: number;
    exportSessions: number;
    exportTurns: number;
  };
  /** fdatasyncMs: p50 of one 8 KB write + fdatasync in the work folder (what each PostgreSQL commit waits for) */
  machine: { cores: number; freeCoresBefore: number; loadAverage: number; fdatasyncMs: number; engineCommits: EngineCommitFigures };
  throughput: ThroughputRow[];
  commit: Record<'direct' | 'sqlite' | 'postgres', { p50Ms: number; p99Ms: number; calls: number; errors: number }>;
  /** synthetic: null when the export stage failed (its error is printed) */
  storage: { recorded: Record<'sqlite' | 'postgres', EngineBytes>; synthetic: Record<'sqlite' | 'postgres', EngineBytes> | null };
  exports: Array<{ engine: 'sqlite' | 'postgres'; fileType: string; bytes: number; seconds: number; cpuSeconds: number }>;
  /** the synthetic store's writes through the Store API: calls per second on each engine */
  writeCallsPerSecond: Record<'sqlite' | 'postgres', number> | null;
  /** each gateway's exit code after SIGTERM */
  gatewayExits: Record<'sqlite' | 'postgres', Array<number | null>>;
}

/** A target of issue 17 as this run measured it. */
export interface TargetVerdict {
  target: string;
  measured: string;
  pass: boolean;
  /** why a miss may say nothing of the code (too few free cores), when it may not */
  note: string | null;
}

const row = (result: PostgresBenchResult, engine: string, gateways: number): ThroughputRow | undefined =>
  result.throughput.find((entry) => entry.engine === engine && entry.gateways === gateways);
const callsPerSecond = (entry: ThroughputRow | undefined): number => (entry === undefined ? Number.NaN : entry.calls / entry.seconds);
const msPerCall = (seconds: number, entry: ThroughputRow | undefined): number =>
  entry === undefined ? Number.NaN : (seconds * 1000) / Math.max(1, entry.calls);
const gatewayMs = (entry: ThroughputRow | undefined): number => msPerCall(entry?.cpu.gateways ?? Number.NaN, entry);
const perTurn = (bytes: EngineBytes): number => bytes.bytes / Math.max(1, bytes.calls);
const exportRate = (result: PostgresBenchResult, engine: string, fileType: string): number => {
  const entry = result.exports.find((figures) => figures.engine === engine && figures.fileType === fileType);
  return entry === undefined ? Number.NaN : entry.bytes / 1e6 / entry.seconds;
};
/** Cores a setup kept busy: every process of the bench, and every other process on the machine. */
export const benchCores = (entry: ThroughputRow): number =>
  (entry.cpu.gateways + (Number.isNaN(entry.cpu.postgres) ? 0 : entry.cpu.postgres) + entry.cpu.simulator + entry.cpu.clients) / entry.seconds;
const otherCores = (entry: ThroughputRow): number => Math.max(0, entry.cpu.machine / entry.seconds - benchCores(entry));

/**
 * The targets of issue 17 ("Benchmark") judged on one run's figures, each a ratio measured in that run.
 *
 * @example judgeTargets(result).filter((verdict) => !verdict.pass).map((verdict) => verdict.target)
 */
export function judgeTargets(result: PostgresBenchResult): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const failed = result.throughput.reduce((sum, entry) => sum + entry.errors, 0);
  // a gateway refusing calls is fast and cheap per call it still serves: its figures judge nothing
  const invalid = failed === 0 ? null : `not judged: ${failed} calls failed in the throughput phase (see the error samples and the gateways' logs)`;
  const cpuRatio = gatewayMs(row(result, 'postgres', 1)) / gatewayMs(row(result, 'sqlite', 1));
  const cpuRatio2 = gatewayMs(row(result, 'postgres', 2)) / gatewayMs(row(result, 'sqlite', 2));
  verdicts.push({
    target: 'gateway CPU per call, PostgreSQL / SQLite <= 1.3',
    measured: `${cpuRatio.toFixed(2)}x with 1 gateway (${gatewayMs(row(result, 'postgres', 1)).toFixed(2)} / ${gatewayMs(row(result, 'sqlite', 1)).toFixed(2)} ms), ${cpuRatio2.toFixed(2)}x with 2`,
    pass: invalid === null && cpuRatio <= 1.3,
    note: invalid,
  });
  const { commit } = result;
  const extra = commit.postgres.p50Ms - commit.sqlite.p50Ms;
  verdicts.push({
    target: 'commit before the last byte, PostgreSQL - SQLite p50 at c=1 <= 1 ms',
    measured: `${extra >= 0 ? '+' : ''}${extra.toFixed(2)} ms (p50 ${commit.postgres.p50Ms.toFixed(2)} / ${commit.sqlite.p50Ms.toFixed(2)} ms; direct ${commit.direct.p50Ms.toFixed(2)} ms)`,
    pass: extra <= 1,
    note: commitFloorNote(result, extra),
  });
  for (const kind of ['recorded', 'synthetic'] as const) {
    const target = `storage per turn (${kind === 'recorded' ? 'recorded by the gateways' : 'synthetic store'}), PostgreSQL / SQLite <= 1.5`;
    const engines = result.storage[kind];
    if (engines === null) {
      verdicts.push({ target, measured: 'not measured (the export stage failed)', pass: false, note: null });
      continue;
    }
    const ratio = perTurn(engines.postgres) / perTurn(engines.sqlite);
    const measured = `${ratio.toFixed(2)}x (${(perTurn(engines.postgres) / 1024).toFixed(1)} / ${(perTurn(engines.sqlite) / 1024).toFixed(1)} KB per call)`;
    verdicts.push({ target, measured, pass: ratio <= 1.5, note: null });
  }
  const fileTypes = new Set(result.exports.map((figures) => figures.fileType));
  if (fileTypes.size === 0)
    verdicts.push({ target: 'export MB/s, PostgreSQL / SQLite >= 0.5', measured: 'not measured (the export stage failed)', pass: false, note: null });
  for (const fileType of fileTypes) {
    const ratio = exportRate(result, 'postgres', fileType) / exportRate(result, 'sqlite', fileType);
    verdicts.push({
      target: `export ${fileType} MB/s, PostgreSQL / SQLite >= 0.5`,
      measured: `${ratio.toFixed(2)}x (${exportRate(result, 'postgres', fileType).toFixed(1)} / ${exportRate(result, 'sqlite', fileType).toFixed(1)} MB/s)`,
      pass: ratio >= 0.5,
      note: null,
    });
  }
  const scaling = judgeScaling(result);
  verdicts.push(invalid === null ? scaling : { ...scaling, pass: false, note: invalid });
  return verdicts;
}

/** Why the c=1 figure is what it is: the engines' own commits side by side, and the gateway's share above their difference. */
function commitFloorNote(result: PostgresBenchResult, extra: number): string {
  const { gapsMs, postgres, postgresUnsynced, sqlite } = result.machine.engineCommits;
  const sign = (ms: number): string => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;
  const each = gapsMs.map(
    (gap, index) =>
      `${sign(postgres[index]! - sqlite[index]!)} ms ${gap === 0 ? 'back to back' : `${gap} ms apart`} (${postgres[index]!.toFixed(2)} / ${sqlite[index]!.toFixed(2)})`,
  );
  // a gateway's calls in this phase come about 10 ms apart (each is sent to the three setups in turn)
  const pace = gapsMs.indexOf(10);
  const share =
    pace < 0 ? '' : `; the gateway's own share above the floor at this phase's pace (10 ms): ${sign(extra - (postgres[pace]! - sqlite[pace]!))} ms`;
  const unsynced =
    pace < 0
      ? ''
      : `; with synchronous_commit off (not durable past a server crash, never the store's setting) that floor at 10 ms is ${sign(postgresUnsynced[pace]! - sqlite[pace]!)} ms (${postgresUnsynced[pace]!.toFixed(2)} ms)`;
  return (
    `the engines alone, a 2 KB insert committed on a plain client, PostgreSQL - SQLite: ${each.join(', ')}: a floor no gateway goes below${share}. ` +
    `PostgreSQL flushes its WAL at each commit (an 8 KB fdatasync: ${result.machine.fdatasyncMs.toFixed(2)} ms p50 on this disk) and its server is another process to wake${unsynced}; SQLite's WAL with synchronous=NORMAL is written on the calling thread without a sync`
  );
}

/**
 * 4 gateways against 1 on PostgreSQL. Three times the calls need three times the CPU of the 1-gateway phase (every
 * process of it: gateways, database, simulator, clients); with fewer free cores than that a miss is the machine's.
 */
function judgeScaling(result: PostgresBenchResult): TargetVerdict {
  const one = row(result, 'postgres', 1);
  const four = row(result, 'postgres', 4);
  const ratio = callsPerSecond(four) / callsPerSecond(one);
  const needed = one === undefined ? Number.NaN : 3 * benchCores(one);
  const free = Math.min(result.machine.freeCoresBefore, four === undefined ? Number.POSITIVE_INFINITY : result.machine.cores - otherCores(four));
  const coresAllow = free >= needed;
  return {
    target: '4 gateways / 1 gateway calls/s on PostgreSQL >= 3 (where the cores allow)',
    measured: `${ratio.toFixed(2)}x (${callsPerSecond(four).toFixed(0)} / ${callsPerSecond(one).toFixed(0)} calls/s)`,
    pass: ratio >= 3,
    note: `${free.toFixed(1)} of ${result.machine.cores} cores free; 3x the 1-gateway phase needs about ${needed.toFixed(1)}: ${coresAllow ? 'the cores allowed the test' : 'the cores did not allow it, so a miss is the machine, not the gateways'}`,
  };
}

function throughputTable(result: PostgresBenchResult): string[] {
  const direct = row(result, 'direct', 0);
  const lines = [
    '| setup | calls/s | x 1 gateway | p50 ms | p99 ms | +p99 ms vs direct | gateway CPU ms/call | PostgreSQL CPU ms/call | cores: bench / others | errors | lost |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const entry of result.throughput) {
    const single = entry.engine === 'direct' ? undefined : row(result, entry.engine, 1);
    const cells = [
      entry.name,
      callsPerSecond(entry).toFixed(0),
      single === undefined ? '-' : (callsPerSecond(entry) / callsPerSecond(single)).toFixed(2),
      entry.p50Ms.toFixed(1),
      entry.p99Ms.toFixed(1),
      entry.engine === 'direct' || direct === undefined ? '-' : (entry.p99Ms - direct.p99Ms).toFixed(1),
      entry.engine === 'direct' ? '-' : gatewayMs(entry).toFixed(2),
      entry.engine === 'postgres' ? msPerCall(entry.cpu.postgres, entry).toFixed(2) : '-',
      `${benchCores(entry).toFixed(2)} / ${otherCores(entry).toFixed(2)}`,
      String(entry.errors),
      entry.lost === null ? '-' : String(entry.lost),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

/**
 * The whole report: configuration and machine, the throughput table, the per-core sizing figures and every target.
 *
 * @example process.stdout.write(`${formatPostgresReport(result)}\n`);
 */
export function formatPostgresReport(result: PostgresBenchResult): string {
  const { config, machine } = result;
  const pg1 = row(result, 'postgres', 1);
  const lines = [
    `postgres bench: ${config.concurrency} concurrent conversations (a closed loop: the same fixed load for every setup), ${config.turns} calls per session, ${config.systemTokens}-token system prompt, ${config.tokens} streamed tokens per call from the fast simulator (unpaced); ${config.rounds} interleaved rounds of ${config.seconds} s per setup`,
    `machine: ${machine.cores} cores, ${machine.freeCoresBefore.toFixed(1)} free before the run (/proc/stat over 2 s), load average ${machine.loadAverage.toFixed(1)}`,
    '',
    ...throughputTable(result),
    ...result.throughput.flatMap((entry) => entry.errorSamples.slice(0, 3).map((sample) => `  ${entry.name} error: ${sample}`)),
    '',
    `sizing: a gateway core carries ${(1000 / gatewayMs(pg1)).toFixed(0)} calls/s on PostgreSQL (${(1000 / gatewayMs(row(result, 'sqlite', 1))).toFixed(0)} on SQLite); a PostgreSQL core ${(1000 / msPerCall(pg1?.cpu.postgres ?? Number.NaN, pg1)).toFixed(0)} calls/s (server CPU of the 1-gateway phase)`,
    `gateway exits after SIGTERM: SQLite ${result.gatewayExits.sqlite.join(', ')}; PostgreSQL ${result.gatewayExits.postgres.join(', ')}`,
    `commit at c=1 (${result.commit.postgres.calls} calls to each after a warm-up session): p50 / p99 ms direct ${result.commit.direct.p50Ms.toFixed(2)} / ${result.commit.direct.p99Ms.toFixed(2)}, SQLite ${result.commit.sqlite.p50Ms.toFixed(2)} / ${result.commit.sqlite.p99Ms.toFixed(2)}, PostgreSQL ${result.commit.postgres.p50Ms.toFixed(2)} / ${result.commit.postgres.p99Ms.toFixed(2)}; errors ${result.commit.sqlite.errors + result.commit.postgres.errors + result.commit.direct.errors}`,
    result.writeCallsPerSecond === null
      ? 'synthetic store: not written (the export stage failed)'
      : `synthetic store (${config.exportSessions} sessions x ${config.exportTurns} turns, bench/make-store.ts) written through the Store API: SQLite ${result.writeCallsPerSecond.sqlite.toFixed(0)} calls/s, PostgreSQL ${result.writeCallsPerSecond.postgres.toFixed(0)} calls/s`,
    ...result.exports.map(
      (figures) =>
        `export ${figures.fileType} from ${figures.engine}: ${(figures.bytes / 1e6).toFixed(1)} MB in ${figures.seconds.toFixed(2)} s (${(figures.bytes / 1e6 / figures.seconds).toFixed(1)} MB/s, ${(figures.bytes / 1e6 / figures.cpuSeconds).toFixed(1)} MB per CPU second)`,
    ),
    '',
    'targets (ratios from this run):',
    ...judgeTargets(result).map(
      (verdict) => `  ${verdict.pass ? 'pass' : 'MISS'}  ${verdict.target}: ${verdict.measured}${verdict.note === null ? '' : `; ${verdict.note}`}`,
    ),
  ];
  return lines.join('\n');
}
