import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PgDatabase } from '../store/postgres/pg-database.js';

const SCRIPTS = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../scripts/' : '../scripts/', import.meta.url));

/** The PostgreSQL server a bench run writes to: its admin URL, and the folder of the cluster when the bench started it. */
export interface BenchPostgres {
  url: string;
  /** the cluster's folder (scripts/start-postgres.sh); null for a server the user named (`--postgres URL`) */
  folder: string | null;
  /** a new empty database on the server; returns its URL */
  createDatabase(name: string): string;
  /** CPU seconds the server's processes have used so far (NaN for a server the bench did not start) */
  cpuSeconds(): number;
  stop(): void;
}

/**
 * Starts a throw-away PostgreSQL in `folder` with the project's script (fsync on, as in production), or uses the
 * server at `url` (it must allow CREATE DATABASE). Exits the bench with the script's reason when PostgreSQL cannot be had.
 *
 * @example const postgres = startBenchPostgres({ folder: join(workDir, 'pg') }); const url = postgres.createDatabase('bench_pg1');
 */
export function startBenchPostgres(options: { folder: string; url?: string }): BenchPostgres {
  let folder: string | null = null;
  let url = options.url;
  if (url === undefined) {
    mkdirSync(options.folder, { recursive: true });
    chmodSync(options.folder, 0o755); // the cluster belongs to the `postgres` user when the bench runs as root
    folder = join(options.folder, 'cluster');
    url = execFileSync('bash', [join(SCRIPTS, 'start-postgres.sh'), folder], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  }
  const admin = new PgDatabase({ connectionString: url, applicationName: 'tokentap-bench' });
  const serverFolder = folder;
  return {
    url,
    folder,
    createDatabase(name) {
      admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      admin.exec(`CREATE DATABASE ${name}`);
      return withDatabase(url, name);
    },
    cpuSeconds: () => (serverFolder === null ? Number.NaN : serverCpuSeconds(serverFolder)),
    stop() {
      admin.close();
      if (serverFolder !== null) execFileSync('bash', [join(SCRIPTS, 'stop-postgres.sh'), serverFolder], { stdio: 'ignore' });
    },
  };
}

/** The same server's URL for another database. */
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** utime, stime and (with `children`) cutime, cstime of a process, in seconds; null once it is gone. */
function readStat(pid: number, children: boolean): { parent: number; seconds: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return { parent: Number(fields[1]), seconds: ticks / 100 };
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a cluster's server: the postmaster, every backend and helper process it runs now, and (cutime,
 * cstime) those that already ended and were reaped by it, so a connection closed during a phase still counts.
 */
function serverCpuSeconds(folder: string): number {
  const postmaster = Number(readFileSync(join(folder, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = readStat(postmaster, true)?.seconds ?? Number.NaN;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry), false);
    if (stat?.parent === postmaster) total += stat.seconds;
  }
  return total;
}

/** Busy and total CPU seconds of the whole machine so far (/proc/stat: every core, every process). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the free time; guest is already inside user
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0) / 100;
  const free = (fields[3]! + fields[4]!) / 100;
  return { busy: total - free, total };
}
