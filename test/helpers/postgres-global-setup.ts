/**
 * Starts one throw-away PostgreSQL server for the whole test run (scripts/start-postgres.sh) and hands its URL to the
 * tests (`inject('postgres')`, read through test/helpers/test-postgres.ts); stopped and removed at the end. Started only
 * when a test file of the run needs it would be nicer, but vitest gives global setup no such view: it costs about a
 * second. Where PostgreSQL cannot be had (the script exits 3), tests that need it skip naming why, except under CI,
 * where .ci/run installs it and its absence is a failure.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface PostgresForTests {
  url: string | null;
  /** why there is none, when url is null */
  unavailable: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresForTests;
  }
}

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'tokentap-pg-'));
  chmodSync(folder, 0o755); // the cluster inside belongs to the `postgres` user when the tests run as root
  const script = join(import.meta.dirname, '../../scripts/start-postgres.sh');
  try {
    const url = execFileSync('bash', [script, join(folder, 'cluster')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    project.provide('postgres', { url, unavailable: null });
  } catch (error) {
    const { status, stderr } = error as { status?: number; stderr?: string };
    const why = (stderr ?? '').trim() || `start-postgres.sh exited ${status}`;
    if (status !== 3 || process.env.CI === 'true') throw new Error(`PostgreSQL for the tests did not start: ${why}`, { cause: error });
    project.provide('postgres', { url: null, unavailable: why });
  }
  return () => {
    execFileSync('bash', [join(import.meta.dirname, '../../scripts/stop-postgres.sh'), join(folder, 'cluster'), '--remove'], { stdio: 'ignore' });
  };
}
