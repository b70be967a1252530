import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PgDatabase, PgError } from '../../store/postgres/pg-database.js';
import { queuedAll, queuedRun } from '../../store/sql/sql-database.js';
import { isPassingStoreFailure, mayHaveEndedTransaction } from '../../store/store-failure-kinds.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';

/**
 * Writes whose result nobody reads wait on the PostgreSQL connection and travel with the next statement that needs an
 * answer (pg-database.ts). They must fail as they would have run at once: with their own error, failing the
 * (sub)transaction they ran in, and a transaction whose queued write failed must never commit.
 */
describe.skipIf(!postgresAvailable())(postgresAvailable() ? 'queued writes on PostgreSQL' : `skipped: ${postgresUnavailable()}`, () => {
  let url: string;
  let database: PgDatabase;
  let insert: (id: number, note: string) => void;
  const ids = (): number[] =>
    database
      .prepare<[], { id: number }>('SELECT id FROM t ORDER BY id')
      .all()
      .map((row) => row.id);

  beforeEach(() => {
    url = createTestDatabase('queued');
    database = new PgDatabase({ connectionString: url });
    database.exec('CREATE TABLE t (id BIGINT PRIMARY KEY, note TEXT NOT NULL)');
    insert = queuedRun(database.prepare<[number, string]>('INSERT INTO t (id, note) VALUES (?, ?)'));
  });

  afterEach(() => {
    database.close();
    dropTestDatabase(url);
  });

  it('travel with the statement waited for: three inserts and the commit in one round trip', () => {
    const before = database.sent;
    database.transaction(() => {
      insert(1, 'a');
      insert(2, 'b');
      insert(3, 'c');
    })();
    const after = database.sent;
    // BEGIN, three inserts, COMMIT
    expect({ statements: after.statements - before.statements, roundTrips: after.roundTrips - before.roundTrips }).toEqual({
      statements: 5,
      roundTrips: 1,
    });
    expect(ids()).toEqual([1, 2, 3]);
  });

  it('queued reads are answered each with its own rows, asked for before or after the statement that carried them', () => {
    insert(1, 'one');
    insert(2, 'two');
    const note = database.prepare<[number], { note: string }>('SELECT note FROM t WHERE id = ?');
    const queueNote = queuedAll(note);
    const before = database.sent;
    const [first, second, third] = database.transaction(() => {
      const one = queueNote(1);
      const two = queueNote(2);
      insert(3, 'three');
      // asked for before anything was sent: the queue goes, each read keeps its own answer
      const firstRows = one();
      const missing = queueNote(4);
      const secondRows = two();
      note.get(3); // carries the read of 4
      return [firstRows, secondRows, missing()];
    })();
    expect([first, second, third]).toEqual([[{ note: 'one' }], [{ note: 'two' }], []]);
    // BEGIN, two reads, the insert; the read of 4 with the get; COMMIT
    expect(database.sent.roundTrips - before.roundTrips).toBe(3);
  });

  it('outside a transaction run at once', () => {
    insert(7, 'alone');
    expect(ids()).toEqual([7]);
  });

  it('a failed one fails the savepoint it ran in, with its own error: the writes around it commit', () => {
    insert(1, 'before');
    const errors: unknown[] = [];
    database.transaction(() => {
      insert(2, 'kept');
      try {
        database.transaction(() => {
          insert(3, 'undone');
          insert(1, 'duplicate'); // fails on the server, unseen here yet
          database.prepare('SELECT 1').get(); // the answer brings the failure
        })();
      } catch (error) {
        errors.push(error);
      }
      insert(4, 'after');
    })();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(PgError);
    expect((errors[0] as PgError).code).toBe('23505');
    expect(ids()).toEqual([1, 2, 4]);
  });

  it('a failed one whose savepoint was released before its answer came fails the whole transaction: nothing commits', () => {
    let thrown: unknown;
    try {
      database.transaction(() => {
        insert(1, 'first');
        database.transaction(() => insert(1, 'duplicate'))(); // released with its failure still unseen
        database.transaction(() => insert(2, 'second'))();
      })();
    } catch (error) {
      thrown = error;
    }
    expect((thrown as PgError).code).toBe('23505');
    expect(ids()).toEqual([]);
  });

  it('a transaction that caught its queued write failing still does not commit, and every later statement in it fails', () => {
    const seen: string[] = [];
    let thrown: unknown;
    try {
      database.transaction(() => {
        insert(1, 'first');
        insert(1, 'duplicate');
        for (const attempt of ['select', 'write', 'savepoint']) {
          try {
            if (attempt === 'select') database.prepare('SELECT 1').get();
            else if (attempt === 'write') insert(5, 'later');
            else database.transaction(() => database.prepare('SELECT 2').get())();
          } catch (error) {
            seen.push(`${attempt} ${(error as PgError).code}`);
          }
        }
      })();
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual(['select 23505', 'write 23505', 'savepoint 23505']);
    expect((thrown as PgError).code).toBe('23505');
    expect(ids()).toEqual([]);
    // the connection is whole again
    database.transaction(() => insert(9, 'next'))();
    expect(ids()).toEqual([9]);
  });

  it('one failing only at the commit throws there, its own error, and leaves nothing written', () => {
    insert(1, 'before');
    expect(() =>
      database.transaction(() => {
        insert(2, 'new');
        insert(1, 'duplicate');
      })(),
    ).toThrow(expect.objectContaining({ code: '23505' }));
    expect(ids()).toEqual([1]);
  });

  it('a connection lost between statements of a transaction fails it whole: its rest never runs on a new connection', () => {
    const other = new PgDatabase({ connectionString: url });
    let thrown: unknown;
    try {
      database.transaction(() => {
        insert(1, 'first');
        // BEGIN and the first insert reach the server with it
        const pid = database.prepare<[], { pid: number }>('SELECT pg_backend_pid() AS pid').get()?.pid;
        other.prepare<[number]>('SELECT pg_terminate_backend(?, 5000)').get(pid as number);
        insert(2, 'second');
      })();
    } catch (error) {
      thrown = error;
    } finally {
      other.close();
    }
    expect(isPassingStoreFailure(thrown)).toBe(true);
    expect(mayHaveEndedTransaction(thrown)).toBe(true);
    expect(ids()).toEqual([]);
    database.transaction(() => insert(3, 'next'))();
    expect(ids()).toEqual([3]);
  });
});
