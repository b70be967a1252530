import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { PgDatabase } from '../../store/postgres/pg-database.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';

/**
 * The PostgreSQL connection waits for its worker's answer on a shared signal (pg-database.ts). The worker sets the
 * signal, then notifies: a thread that saw the signal set without waiting could be woken by that late notify during
 * its next wait, read no answer yet, and from then on take each statement's answer for the next one's (found by
 * bench/postgres.ts: a recording thread, which writes from a MessagePort handler, lost its store in 2 runs of 5).
 * Writes from a message handler under a steady stream of messages, as the recording thread does, must all succeed.
 */
describe.skipIf(!postgresAvailable())(postgresAvailable() ? 'PostgreSQL connection wake-ups' : `skipped: ${postgresUnavailable()}`, () => {
  it('statements run from a MessagePort handler each get their own answer', async () => {
    const url = createTestDatabase('wakeups');
    const database = new PgDatabase({ connectionString: url });
    try {
      database.exec('CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n BIGINT NOT NULL, body BYTEA NOT NULL)');
      const insert = database.prepare<[number, Buffer], { id: number }>('INSERT INTO t (n, body) VALUES (?, ?) RETURNING id');
      const read = database.prepare<[number], { n: number; size: number }>('SELECT n, octet_length(body) AS size FROM t WHERE id = ?');
      const write = database.transaction((n: number, body: Buffer) => {
        const { id } = insert.get(n, body) as { id: number };
        return read.get(id);
      });
      const failures: string[] = [];
      let written = 0;
      const { port1, port2 } = new MessageChannel();
      port1.on('message', (n: number) => {
        try {
          const row = write(n, Buffer.alloc(20_000, n % 256));
          if (row?.n !== n || row.size !== 20_000) failures.push(`write ${n} read back ${JSON.stringify(row)}`);
          written++;
        } catch (error) {
          failures.push(`write ${n}: ${(error as Error).message}`);
        }
      });
      const deadline = performance.now() + 2_500;
      let sent = 0;
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          for (let index = 0; index < 20; index++) port2.postMessage(sent++);
          if (performance.now() < deadline) return;
          clearInterval(timer);
          resolve();
        }, 1);
      });
      await expect.poll(() => written + failures.length, { timeout: 60_000 }).toBe(sent);
      port1.close();
      expect(failures.slice(0, 3)).toEqual([]);
      expect(written).toBeGreaterThan(100);
    } finally {
      database.close();
      dropTestDatabase(url);
    }
  }, 90_000);
});
