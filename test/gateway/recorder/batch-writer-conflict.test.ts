import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../gateway/recorder/batch-writer.js';
import { postgresAvailable, postgresUnavailable } from '../../helpers/test-postgres.js';
import { createTempWorkspace, sampleBeginInput, type TempWorkspace } from '../../store/store-fixtures.js';

/**
 * Gateways group-commit calls of many sessions in one transaction, and a begin holds its session's row until the
 * commit: two gateways' batches can wait on each other, and PostgreSQL breaks the deadlock by failing one of them
 * (40P01). Played here for real: another process (another gateway's transaction) holds session b's row and, once the
 * batch waits for it, asks for session a's, which the batch holds.
 */
let workspace: TempWorkspace | undefined;
afterEach(() => {
  workspace?.cleanup();
  workspace = undefined;
});

/** The other transaction: holds `b`, waits until a backend of this database waits for a lock, then takes `a`. */
const OTHER_TRANSACTION = `
import pg from 'pg';
const client = new pg.Client({ connectionString: process.argv[1] });
await client.connect();
await client.query('BEGIN');
await client.query("SELECT id FROM sessions WHERE id = 'b' FOR UPDATE");
console.log('holding b');
for (;;) {
  // inside a transaction the activity view is read once and kept: read it anew each time
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  if (rows[0].n > 0) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await client.query("SELECT id FROM sessions WHERE id = 'a' FOR UPDATE");
await client.query('COMMIT');
console.log('committed');
await client.end();
`;

function deadlocksSoFar(): number {
  return workspace!.inspect(
    (database) => (database.prepare(`SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()`).get() as { n: number }).n,
  );
}

describe.skipIf(!postgresAvailable())(
  `a batch PostgreSQL rolls back to break a deadlock${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`,
  () => {
    it('is written again: every begin of it lands, none reported failed', async () => {
      workspace = createTempWorkspace('postgres');
      const setup = workspace.open();
      for (const session of ['a', 'b']) setup.beginCall(sampleBeginInput({ sessionId: session }));
      setup.close();
      const deadlocksBefore = deadlocksSoFar();
      const other = spawn(process.execPath, ['--input-type=module', '-e', OTHER_TRANSACTION, workspace.databasePath], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: other.stdout! });
      const said: string[] = [];
      lines.on('line', (line) => said.push(line));
      await once(lines, 'line');
      expect(said).toEqual(['holding b']);

      const store = workspace.open();
      const writer = new BatchWriter(store);
      // begin a takes a's row; begin b waits on the other transaction, which then waits on a: one of the two must go
      const outcome = writer.write([
        { kind: 'begin', input: { ...sampleBeginInput({ sessionId: 'a' }), callId: 'call-a' } },
        { kind: 'begin', input: { ...sampleBeginInput({ sessionId: 'b' }), callId: 'call-b' } },
      ]);
      const [code] = (await once(other, 'exit')) as [number];
      expect(code).toBe(0);
      expect(said).toEqual(['holding b', 'committed']);
      expect(outcome.errors).toEqual([undefined, undefined]);
      expect(
        ['a', 'b'].map((session) => store.listCalls(session).map((call) => [call.id.startsWith('call-') ? call.id : 'first', call.seq])),
      ).toEqual([
        [
          ['first', 1],
          ['call-a', 2],
        ],
        [
          ['first', 1],
          ['call-b', 2],
        ],
      ]);
      // the deadlock did happen (the batch was its victim: it waited first); a backend counts it when it ends
      store.close();
      await expect.poll(deadlocksSoFar, { timeout: 10_000 }).toBeGreaterThan(deadlocksBefore);
    });
  },
);
