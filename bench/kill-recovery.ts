/**
 * `npm run bench:kill-recovery -- --sessions 16 --kills 10 --seed 1`: SIGKILLs a recording gateway under load again
 * and again, restarts it on the same database, and checks that no call a client received in full was lost
 * (docs/reliability.md, promise 1). Prints the seed, every kill point and the verdict; exits 1 on any violation.
 * `--db postgres://...` runs it on an empty PostgreSQL database instead of a SQLite file.
 */
import { parseArgs } from 'node:util';
import { runKillRecovery } from './kill-recovery-run.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string', default: '16' },
      kills: { type: 'string', default: '10' },
      seed: { type: 'string', default: String(Date.now() % 1_000_000) },
      'acknowledged-before-kill': { type: 'string' },
      'min-delay-ms': { type: 'string', default: '0' },
      'max-delay-ms': { type: 'string', default: '1000' },
      'tokens-per-second': { type: 'string', default: '150' },
      'work-dir': { type: 'string' },
      db: { type: 'string' },
    },
  });
  const write = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const report = await runKillRecovery({
    sessions: Number(values.sessions),
    kills: Number(values.kills),
    seed: Number(values.seed),
    acknowledgedBeforeKill: values['acknowledged-before-kill'] === undefined ? undefined : Number(values['acknowledged-before-kill']),
    minKillDelayMs: Number(values['min-delay-ms']),
    maxKillDelayMs: Number(values['max-delay-ms']),
    tokensPerSecond: Number(values['tokens-per-second']),
    workDir: values['work-dir'],
    db: values.db,
    log: write,
  });
  write(
    [
      `kills survived:            ${report.kills.length}`,
      `calls attempted:           ${report.attempts} (${report.interrupted} cut by a kill and sent again)`,
      `calls acknowledged:        ${report.acknowledged}`,
      `calls verified:            ${report.verified} (token-exact against the simulator, request and answer as the client saw them)`,
      `lost:                      ${report.lost}`,
      `wrong:                     ${report.wrong}`,
      `incomplete:                ${report.incomplete}`,
      `ok but not acknowledged:   ${report.committedUnacknowledged} (committed, killed before the last byte; verified too)`,
      `absent:                    ${report.absent} (killed before the call's first row committed)`,
      `integrity_check:           ${report.kills.every((kill) => kill.integrity === 'ok') && report.finalIntegrity === 'ok' ? 'ok after every kill and at the end' : 'FAILED'}`,
      `graceful shutdown exit:    ${report.shutdownExitCode}`,
      `seed:                      ${report.seed}`,
    ].join('\n'),
  );
  for (const violation of report.violations) write(`VIOLATION: ${violation}`);
  if (report.violations.length > 0) write(`database and gateway logs kept in ${report.workDir}`);
  return report.violations.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kill-recovery: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
