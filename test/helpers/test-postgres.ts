/**
 * The test run's PostgreSQL server (test/helpers/postgres-global-setup.ts) and a fresh database on it per caller, so
 * test files running in parallel never see each other's rows. No mock anywhere: a real server from Debian's packages.
 *
 * @example
 * describe.skipIf(!postgresAvailable())('on PostgreSQL', () => { const url = createTestDatabase(); ... });
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { PgDatabase } from '../../store/postgres/pg-database.js';

/** The server's admin URL, or null when PostgreSQL cannot be had here (the reason is in postgresUnavailable()). */
export function postgresUrl(): string | null {
  return inject('postgres')?.url ?? null;
}

export function postgresAvailable(): boolean {
  return postgresUrl() !== null;
}

/** Why PostgreSQL tests are skipped here; shown in the skipped suite's name. */
export function postgresUnavailable(): string {
  return inject('postgres')?.unavailable ?? 'the PostgreSQL test server was not started (vitest.config.ts globalSetup)';
}

/** Creates an empty database on the test server and returns its URL. */
export function createTestDatabase(prefix = 'tt'): string {
  const admin = postgresUrl();
  if (admin === null) throw new Error(`no PostgreSQL for the tests: ${postgresUnavailable()}`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const database = new PgDatabase({ connectionString: admin });
  try {
    database.exec(`CREATE DATABASE ${name}`);
  } finally {
    database.close();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database made by createTestDatabase (its connections closed first). */
export function dropTestDatabase(databaseUrl: string): void {
  const admin = postgresUrl();
  if (admin === null) return;
  const name = new URL(databaseUrl).pathname.slice(1);
  const database = new PgDatabase({ connectionString: admin });
  try {
    database.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    database.close();
  }
}
