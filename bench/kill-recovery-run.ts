import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, redactPostgresUrl } from '../store/index.js';
import { createSimBackend, type SimGenerationRecord, type SimScript } from '../sim/index.js';
import { createSeededRandom, hashNumbers, type SeededRandom } from '../sim/seeded-random.js';
import { freePort, startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { inspectKilledStore, readMarkedIncomplete } from './inspect-killed-store.js';
import { ClientLedger, GatewayGate, runChatSession } from './kill-recovery-client.js';
import { verifyRecoveredStore, type RecoveryVerdict } from './verify-recovered-store.js';

export interface KillRecoveryOptions {
  /** concurrent client sessions */
  sessions: number;
  /** SIGKILLs of the gateway, each followed by a restart on the same database */
  kills: number;
  /** seeds the kill delays and every client's choices (stream or not, what the user says) */
  seed: number;
  /**
   * each kill comes once the clients have had this many calls answered in full since the gateway's (re)start, so
   * committed calls cross every kill; default `sessions`
   */
  acknowledgedBeforeKill?: number;
  /** and then after a random delay between these; defaults 0 and 1000 ms */
  minKillDelayMs?: number;
  maxKillDelayMs?: number;
  /** acknowledged turns every session still completes after the last restart; default 2 */
  finalTurns?: number;
  /** the simulator's pace, so calls are in flight when the kill comes; default 150 */
  tokensPerSecond?: number;
  /** the built CLI; default dist/cli/main.js */
  cliPath?: string;
  /** where the database and the gateway's logs go; default a temp folder, removed after a clean run */
  workDir?: string;
  /**
   * the database: a `postgres://` URL of an empty database (or one of the latest schema and no rows) to run on
   * PostgreSQL (issue 17, must-have 4); default a SQLite file in `workDir`
   */
  db?: string;
  /** progress lines: the seed, each kill point, the verdict */
  log?: (line: string) => void;
}

/** A SIGKILL and what it left behind. */
export interface KillPoint {
  /** ms after the gateway was up */
  afterMs: number;
  /** the random delay drawn for it, after `acknowledgedBeforeKill` answers; null: at the last byte of the next answer */
  delayMs: number | null;
  /** calls answered in full since the gateway was up */
  acknowledgedSinceStart: number;
  /** ms from the kill until the restarted gateway listened */
  restartMs: number;
  /** client calls in flight at the kill */
  callsInFlight: number;
  /** rows the kill left `in_progress` */
  rowsInProgress: number;
  /** rows the restarted gateway marked `incomplete` (logged at its start) */
  markedIncomplete: number;
  /** PRAGMA integrity_check on the file the kill left (PostgreSQL: its schema readable, store.integrityCheck()) */
  integrity: string;
}

export interface KillRecoveryReport extends RecoveryVerdict {
  seed: number;
  kills: KillPoint[];
  attempts: number;
  acknowledged: number;
  /** attempts cut by a kill (each was sent again once the gateway was back) */
  interrupted: number;
  /** attempts that left no row at all (killed before the call's first write committed) */
  absent: number;
  /** integrity_check after the final graceful shutdown */
  finalIntegrity: string;
  /** how the last gateway exited after SIGTERM */
  shutdownExitCode: number | null;
  workDir: string;
}

const MODEL = 'Qwen/Qwen3-8B';
/** A tool loop now and then: the weather question calls the tool, its result gets a plain answer. */
const SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'sunny' }, content: 'It is sunny in Paris, 21 degrees.', times: 'forever' },
    { match: { lastUserContains: 'weather' }, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], times: 'forever' },
  ],
};

/**
 * The kill-recovery run (issue #7, promise 1): the simulator in this process, `tokentap serve` as a child process,
 * `sessions` clients talking to it over HTTP, and `kills` SIGKILLs at seeded random moments, each followed by an
 * integrity check of the file and a restart on the same database. After a last round of turns and a graceful
 * shutdown, every call a client received in full must be in the store, token-exact (verify-recovered-store.ts).
 *
 * @example
 * const report = await runKillRecovery({ sessions: 8, kills: 3, seed: 7 });
 * report.lost; // 0
 */
export async function runKillRecovery(options: KillRecoveryOptions): Promise<KillRecoveryReport> {
  const log = options.log ?? ((): void => undefined);
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'tokentap-kill-'));
  const db = options.db ?? join(workDir, 'kill-recovery.db');
  const sim = await createSimBackend({
    fast: true,
    acceptAnyModel: true,
    seed: options.seed,
    tokensPerSecond: options.tokensPerSecond ?? 150,
    script: SCRIPT,
    maxModelLen: 10_000_000,
  });
  const simRecords = new Map<string, SimGenerationRecord>();
  sim.on('generation', (record) => simRecords.set(record.requestId, record));
  const simUrl = await sim.listen();
  const port = await freePort();
  let starts = 0;
  const run: Run = {
    options,
    db,
    random: createSeededRandom(options.seed),
    gate: new GatewayGate(),
    ledger: new ClientLedger(),
    gateway: null,
    upAt: 0,
    start: () => startGatewayProcess({ backendUrl: simUrl, db, port, cliPath: options.cliPath, logFile: join(workDir, `gateway-${++starts}.log`) }),
  };
  log(
    `kill-recovery: seed ${options.seed}, ${options.sessions} sessions, ${options.kills} kills, work dir ${workDir}${options.db === undefined ? '' : `, database ${redactPostgresUrl(options.db)}`}`,
  );
  const sessionIds = Array.from({ length: options.sessions }, (_, index) => `kr-${options.seed}-${index}`);
  let finalPhaseFrom: number[] | null = null;
  const sessions = sessionIds.map((sessionId, index) =>
    runChatSession({
      sessionId,
      gate: run.gate,
      ledger: run.ledger,
      model: MODEL,
      random: createSeededRandom(hashNumbers([options.seed, index])),
      done: (turns) => finalPhaseFrom !== null && turns >= (finalPhaseFrom[index] ?? 0) + (options.finalTurns ?? 2),
    }),
  );
  const kills: KillPoint[] = [];
  try {
    await restart(run);
    for (let kill = 1; kill <= options.kills; kill++) {
      kills.push(await killAndRestart(run, kill));
      log(describeKill(kills.at(-1)!, kill, options.kills));
    }
    finalPhaseFrom = sessionIds.map((sessionId) => run.ledger.acknowledged.filter((call) => call.sessionId === sessionId).length);
    await Promise.all(sessions);
  } catch (error) {
    run.gateway?.child.kill('SIGKILL');
    await sim.close();
    throw error;
  }
  run.gateway!.child.kill('SIGTERM');
  const shutdownExitCode = (await run.gateway!.exited).code;
  await sim.close();
  const store = openStore({ path: db, readonly: true });
  const verdict = verifyRecoveredStore(store, sessionIds, run.ledger.acknowledged, simRecords);
  const finalIntegrity = store.integrityCheck();
  store.close();
  const { ledger } = run;
  const report: KillRecoveryReport = {
    ...verdict,
    seed: options.seed,
    kills,
    attempts: ledger.attempts,
    acknowledged: ledger.acknowledged.length,
    interrupted: ledger.interrupted,
    absent: ledger.attempts - ledger.unexpected.length - verdict.rows,
    finalIntegrity,
    shutdownExitCode,
    workDir,
  };
  report.violations.push(...runViolations(report, ledger));
  if (report.violations.length === 0 && options.workDir === undefined) rmSync(workDir, { recursive: true, force: true });
  return report;
}

/** One run's moving parts: the clients' gate and ledger, and the gateway process of the moment. */
interface Run {
  options: KillRecoveryOptions;
  db: string;
  random: SeededRandom;
  gate: GatewayGate;
  ledger: ClientLedger;
  gateway: GatewayProcess | null;
  /** when the current gateway was up (performance.now()) */
  upAt: number;
  start: () => Promise<GatewayProcess>;
}

async function restart(run: Run): Promise<void> {
  run.gateway = await run.start();
  run.upAt = performance.now();
  run.gate.open(run.gateway.url);
}

/**
 * Waits for `acknowledgedBeforeKill` answers since the gateway's start, then SIGKILLs it: every other kill (the 1st,
 * 3rd, ...) the moment a client gets the last byte of an answer (a stream's `data: [DONE]`, a body's end), when a
 * gateway that sent it before committing would lose that call; the others after a seeded random delay. Then checks
 * the file the kill left and restarts the gateway on it.
 */
async function killAndRestart(run: Run, kill: number): Promise<KillPoint> {
  const { ledger, options } = run;
  const gateway = run.gateway!;
  const atLastByte = kill % 2 === 1;
  const delayMs = atLastByte ? null : run.random.integer(options.minKillDelayMs ?? 0, options.maxKillDelayMs ?? 1000);
  const acknowledgedAtStart = ledger.acknowledged.length;
  await ledger.whenAcknowledged(acknowledgedAtStart + (options.acknowledgedBeforeKill ?? options.sessions));
  let killedAt = 0;
  let callsInFlight = 0;
  const killNow = (): void => {
    callsInFlight = ledger.inFlight;
    run.gate.close(); // before the kill, so a client that sees its call fail waits for the restart
    gateway.child.kill('SIGKILL');
    killedAt = performance.now();
  };
  if (delayMs === null) await ledger.atNextLastByte(killNow);
  else {
    await sleep(delayMs);
    killNow();
  }
  const acknowledgedSinceStart = ledger.acknowledged.length - acknowledgedAtStart;
  await gateway.exited;
  const left = inspectKilledStore(run.db);
  const afterMs = Math.round(killedAt - run.upAt);
  await restart(run);
  const markedIncomplete = readMarkedIncomplete(run.gateway!.lines);
  return { afterMs, delayMs, acknowledgedSinceStart, restartMs: Math.round(run.upAt - killedAt), callsInFlight, ...left, markedIncomplete };
}

function describeKill(point: KillPoint, kill: number, kills: number): string {
  const when = point.delayMs === null ? 'at the last byte of an answer' : `${point.delayMs} ms later`;
  return (
    `kill ${kill}/${kills}: SIGKILL ${point.afterMs} ms after start (${point.acknowledgedSinceStart} calls answered, then ${when}), ` +
    `${point.callsInFlight} calls in flight, ${point.rowsInProgress} rows left in progress, integrity_check ${point.integrity}; ` +
    `restarted in ${point.restartMs} ms, ${point.markedIncomplete} rows marked incomplete`
  );
}

/** Violations beyond the rows: a damaged file, a kill that marked other rows than it left, an odd answer, a bad exit. */
function runViolations(report: KillRecoveryReport, ledger: ClientLedger): string[] {
  const violations: string[] = [];
  report.kills.forEach((kill, index) => {
    if (kill.integrity !== 'ok') violations.push(`kill ${index + 1}: integrity_check says ${kill.integrity}`);
    if (kill.markedIncomplete !== kill.rowsInProgress)
      violations.push(`kill ${index + 1}: ${kill.rowsInProgress} rows in progress, ${kill.markedIncomplete} marked incomplete`);
  });
  if (report.finalIntegrity !== 'ok') violations.push(`final integrity_check says ${report.finalIntegrity}`);
  if (report.shutdownExitCode !== 0) violations.push(`the gateway exited with ${report.shutdownExitCode} after SIGTERM`);
  for (const detail of ledger.unexpected) violations.push(`unexpected answer: ${detail}`);
  return violations;
}
