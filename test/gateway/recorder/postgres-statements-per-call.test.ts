import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStore } from '../../../store/create-store.js';
import { applyPgMigrations } from '../../../store/postgres/apply-pg-migrations.js';
import { PgDatabase } from '../../../store/postgres/pg-database.js';
import { watchPostgresSessionEnds } from '../../../store/postgres/session-end-watch.js';
import type { SessionEndWatch, Store } from '../../../store/types.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { acquireMigratedDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../../helpers/test-postgres.js';

/**
 * What one recorded call costs PostgreSQL in statements and in round trips to the connection's worker thread (each
 * waited for: about a millisecond of wall time on a busy machine, the bulk of a PostgreSQL gateway's cost; issue 17's
 * speed targets). A streamed chat call of a growing conversation, recorded by a gateway on the same thread as its
 * store: the gateway's reads and the recorder's writes together. A change that adds a statement or a wait to the hot
 * path fails here; one that removes some updates the figures (and docs/benchmarks.md).
 */
/**
 * Statements sent and waits for a call, 2026-12-02: 25 and 19 before queued writes and reads (the first call 24 and
 * 18); then 21 and 5 (a read of the session; the begin's lookup with its insert, then its writes with the COMMIT; the
 * end's candidates with the call's state, then its updates with the COMMIT). Now a waited-for read of the session;
 * the begin as one round trip: BEGIN + SAVEPOINT + the session claim + the call's insert (its seq answered with the
 * COMMIT) + the blobs' and cells' inserts + the bodies' + RELEASE + COMMIT, no lookup where the writer knows the
 * history's cells stored (the first call of a session looks its parts up first: one round trip more); the end as one:
 * BEGIN + SAVEPOINT + the update of the call and its bodies (its session, metadata and prompt candidates remembered
 * by the writer, not read) + RELEASE + COMMIT.
 */
const FIRST_CALL = { statements: 18, roundTrips: 4 };
/**
 * Then the session's rollout row is kept by the gateway once read (gateway/rollouts/rollout-read-cache.ts: the store
 * announces each session's end), so its read leaves the calls after the second: the second reads the row the first
 * call's begin made (17 and 3), the later ones read nothing before they are forwarded (16 and 2).
 */
const SECOND_CALL = { statements: 17, roundTrips: 3 };
const LATER_CALL = { statements: 16, roundTrips: 2 };

describe.skipIf(!postgresAvailable())(
  postgresAvailable() ? 'statements per recorded call on PostgreSQL' : `skipped: ${postgresUnavailable()}`,
  () => {
    let url: string;
    let database: PgDatabase;
    let store: Store;
    let setup: GatewayWithSim;
    const watches: SessionEndWatch[] = [];

    beforeAll(async () => {
      url = acquireMigratedDatabase();
      database = new PgDatabase({ connectionString: url });
      applyPgMigrations(database);
      store = createStore({
        database,
        label: 'statements-per-call',
        readonly: false,
        bytesOnDisk: () => 0,
        integrityCheck: () => 'ok',
        watchSessionEnds: (listener) => {
          const watch = watchPostgresSessionEnds(url, listener);
          watches.push(watch);
          return watch;
        },
        close: () => database.close(),
      });
      // no timer of the gateway's touches the store while a call is counted: no heartbeat within the test, no idle sweep
      setup = await startGatewayWithSim({}, { store, instanceHeartbeatMs: 3_600_000, sessionIdleTimeoutMs: 0 });
      await vi.waitFor(() => expect(watches.map((watch) => watch.live)).toEqual([true]), { timeout: 10_000 });
    });

    afterAll(async () => {
      await setup?.close();
      store?.close();
      if (url !== undefined) dropTestDatabase(url);
    });

    it('a streamed call of a growing conversation costs a fixed number of statements and waits', async () => {
      const system = 'Follow the repository conventions and run the tests after each change. '.repeat(60);
      const messages: Array<{ role: string; content: string }> = [
        { role: 'system', content: system },
        { role: 'user', content: 'Turn 1: read the task and start.' },
      ];
      const perTurn: Array<{ statements: number; roundTrips: number }> = [];
      for (let turn = 1; turn <= 4; turn++) {
        const before = database.sent;
        const response = await fetch(`${setup.openaiBase('counted')}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'Qwen/Qwen3-8B', stream: true, max_tokens: 16, messages }),
        });
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
        const after = database.sent;
        perTurn.push({ statements: after.statements - before.statements, roundTrips: after.roundTrips - before.roundTrips });
        messages.push({ role: 'assistant', content: `answer ${turn}` }, { role: 'user', content: `Turn ${turn + 1}: go on.` });
      }
      const calls = store.listCalls('counted');
      expect(calls.map((call) => [call.seq, call.status])).toEqual([
        [1, 'ok'],
        [2, 'ok'],
        [3, 'ok'],
        [4, 'ok'],
      ]);
      // the first call of a session stores its system prompt and first message; the later ones the two new messages
      expect(perTurn[0]).toEqual(FIRST_CALL);
      expect(perTurn.slice(1)).toEqual([SECOND_CALL, LATER_CALL, LATER_CALL]);
    }, 60_000);
  },
);
