import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStore } from '../../store/copy-store.js';
import { TRAINER_FORMATS } from '../../trainer-adapters/index.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';

/**
 * Issue 17, must-have 5: the reading commands work the same on both engines. One dataset is recorded through the
 * gateway into SQLite and copied exactly into PostgreSQL (tokentap migrate's copy); then each command's output from
 * the two stores must be the same text, the store's own name aside: sessions, show, diagnose, stats and an export of
 * every trainer format.
 */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(!postgresAvailable())(postgresAvailable() ? 'reading commands on SQLite and PostgreSQL' : `skipped: ${postgresUnavailable()}`, () => {
  let fixture: ExportFixture;
  let postgres: string;
  beforeAll(async () => {
    fixture = await recordExportFixture();
    postgres = createTestDatabase('reading');
    await copyStore({ from: fixture.dbPath, to: postgres, isGatewayLive: () => false });
  }, 90_000);
  afterAll(() => {
    fixture?.remove();
    if (postgres !== undefined) dropTestDatabase(postgres);
  });

  /** The command's output on each engine, with each store's name replaced by one word. */
  function onBoth(args: (db: string) => string[]): { sqlite: ReturnType<typeof runCli>; postgres: ReturnType<typeof runCli> } {
    const named = (result: ReturnType<typeof runCli>, db: string): ReturnType<typeof runCli> => ({
      ...result,
      stdout: result.stdout.replaceAll(db, 'STORE'),
      stderr: result.stderr.replaceAll(db, 'STORE'),
    });
    return { sqlite: named(runCli(args(fixture.dbPath)), fixture.dbPath), postgres: named(runCli(args(postgres)), postgres) };
  }

  it('sessions, show, diagnose and stats print the same on both, in text and JSON', () => {
    const session = fixture.rollouts[2]?.sessionId as string; // the rollout whose history was edited: two samples, a break
    const commands: string[][] = [
      ['sessions'],
      ['sessions', '--json'],
      ['sessions', '--group', 'task-a'],
      ['show', session],
      ['show', session, '--json'],
      ['diagnose', session],
      ['diagnose', session, '--json'],
      ['stats'],
      ['stats', '--json', '--split', 'train'],
    ];
    for (const command of commands) {
      const { sqlite, postgres: onPostgres } = onBoth((db) => [...command, '--db', db]);
      expect(sqlite.status, `${command.join(' ')}: ${sqlite.stderr}`).toBe(0);
      expect(onPostgres, command.join(' ')).toEqual(sqlite);
    }
    expect(runCli(['sessions', '--db', postgres]).stdout).toContain(session);
  });

  it('an export of every trainer format writes the same bytes from both', () => {
    for (const { format } of TRAINER_FORMATS) {
      const outputs = { sqlite: `${fixture.dir}/${format}-sqlite.jsonl`, postgres: `${fixture.dir}/${format}-postgres.jsonl` };
      const fromSqlite = runCli(['export', '--db', fixture.dbPath, '--format', format, '--out', outputs.sqlite]);
      const fromPostgres = runCli(['export', '--db', postgres, '--format', format, '--out', outputs.postgres]);
      expect(fromSqlite.status, `${format}: ${fromSqlite.stderr}`).toBe(0);
      expect(fromPostgres.status, `${format}: ${fromPostgres.stderr}`).toBe(0);
      const written = readFileSync(outputs.sqlite, 'utf8');
      expect(written.length, format).toBeGreaterThan(0);
      expect(readFileSync(outputs.postgres, 'utf8'), format).toBe(written);
    }
  });
});
