/**
 * A PostgreSQL server of one test's own (scripts/start-postgres.sh in a temp folder), for tests that stop and start
 * the server itself: the run's shared server (postgres-global-setup.ts) serves every other file at once. Costs an
 * initdb (a few seconds on two cores); started again on the same port, so the gateways' URL stays the same.
 *
 * @example
 * const server = startOwnPostgresServer();
 * const url = server.createDatabase('tokentap');
 * server.stop(); // pg_ctl -m fast stop
 * server.start(); // the same cluster, the same port
 * server.remove();
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgDatabase } from '../../store/postgres/pg-database.js';

export interface OwnPostgresServer {
  /** the server's admin URL (database `postgres`) */
  url: string;
  /** creates an empty database and returns its URL */
  createDatabase(name: string): string;
  /** a fast shutdown (`pg_ctl -m fast stop`): sessions are ended, open transactions rolled back */
  stop(): void;
  start(): void;
  /** stops the server and deletes its folder */
  remove(): void;
}

const SCRIPTS = join(import.meta.dirname, '../../scripts');

export function startOwnPostgresServer(): OwnPostgresServer {
  const folder = mkdtempSync(join(tmpdir(), 'tokentap-own-pg-'));
  chmodSync(folder, 0o755); // the cluster inside belongs to the `postgres` user when the tests run as root
  const cluster = join(folder, 'cluster');
  const start = (): string => execFileSync('bash', [join(SCRIPTS, 'start-postgres.sh'), cluster], { encoding: 'utf8' }).trim();
  const url = start();
  return {
    url,
    createDatabase(name) {
      const admin = new PgDatabase({ connectionString: url, applicationName: 'tokentap-tests' });
      try {
        admin.exec(`CREATE DATABASE ${name}`);
      } finally {
        admin.close();
      }
      const database = new URL(url);
      database.pathname = `/${name}`;
      return database.toString();
    },
    stop() {
      execFileSync('bash', [join(SCRIPTS, 'stop-postgres.sh'), cluster], { stdio: 'ignore' });
    },
    start() {
      start();
    },
    remove() {
      execFileSync('bash', [join(SCRIPTS, 'stop-postgres.sh'), cluster, '--remove'], { stdio: 'ignore' });
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
