import { describe, expect, it } from 'vitest';
import { inJsonArray, type SqlDatabase } from '../../store/sql/sql-database.js';
import { engineSuiteName, engineUnavailable, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';

/**
 * `inJsonArray`, the form of every "these sessions" read of the store (an export page's calls and rewards, its
 * rollouts, the viewer's call kinds): it must find the listed strings through the column's index on both engines.
 * PostgreSQL planned the `IN (SELECT … jsonb_array_elements_text …)` it replaced as a seq scan of the whole table
 * at this size, so each export page read every call of the store (issue 17, export speed).
 */

const SESSIONS = 2_000;
const ROWS_PER_SESSION = 10;

/** A table shaped like `calls` for the lookup (text key, a unique (session, seq) index), filled and analysed. */
function fillProbe(database: SqlDatabase, engine: 'sqlite' | 'postgres'): void {
  database.exec('CREATE TABLE lookup_probe (session_id TEXT NOT NULL, seq INTEGER NOT NULL, payload TEXT, UNIQUE (session_id, seq))');
  const rows = SESSIONS * ROWS_PER_SESSION;
  if (engine === 'postgres') {
    database.exec(
      `INSERT INTO lookup_probe SELECT 's-' || (n / ${ROWS_PER_SESSION}), n % ${ROWS_PER_SESSION}, repeat('x', 200) FROM generate_series(0, ${rows - 1}) AS n`,
    );
  } else {
    database.exec(
      `WITH RECURSIVE counter(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM counter WHERE n < ${rows - 1})
       INSERT INTO lookup_probe SELECT 's-' || (n / ${ROWS_PER_SESSION}), n % ${ROWS_PER_SESSION}, printf('%.200c', 'x') FROM counter`,
    );
  }
  database.exec('ANALYZE lookup_probe');
}

/** The engine's plan of the statement, one line per node. */
function planOf(database: SqlDatabase, engine: 'sqlite' | 'postgres', sql: string, parameter: string): string {
  if (engine === 'postgres') {
    const rows = database.prepare<[string], { 'QUERY PLAN': string }>(`EXPLAIN ${sql}`).all(parameter);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }
  const rows = database.prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(parameter);
  return rows.map((row) => row.detail).join('\n');
}

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    it('a JSON array of keys finds its rows through the index, each row once, keys absent or repeated changing nothing', () => {
      const { rows, plan } = workspace.inspect((database) => {
        fillProbe(database, engine);
        const sql = `SELECT session_id, seq FROM lookup_probe WHERE ${inJsonArray(database, 'session_id', '?')} ORDER BY session_id, seq`;
        const keys = JSON.stringify(['s-1999', 's-7', 'absent', 's-7', "s-'quote"]);
        return {
          rows: database.prepare<[string], { session_id: string; seq: number }>(sql).all(keys),
          plan: planOf(database, engine, sql, keys),
        };
      });
      const expected = ['s-1999', 's-7'].flatMap((sessionId) =>
        Array.from({ length: ROWS_PER_SESSION }, (_, seq) => ({ session_id: sessionId, seq })),
      );
      expect(rows.map((row) => ({ session_id: row.session_id, seq: Number(row.seq) }))).toEqual(expected);
      if (engine === 'postgres') {
        expect(plan).toMatch(/Index (Only )?Scan (using|on) lookup_probe_session_id_seq_key/);
        expect(plan).not.toMatch(/Seq Scan on lookup_probe/);
      } else {
        expect(plan).toMatch(/SEARCH lookup_probe USING (COVERING )?INDEX/);
        expect(plan).not.toMatch(/SCAN lookup_probe/);
      }
    });

    it('an empty array finds nothing', () => {
      const rows = workspace.inspect((database) => {
        fillProbe(database, engine);
        return database
          .prepare<[string], { seq: number }>(`SELECT seq FROM lookup_probe WHERE ${inJsonArray(database, 'session_id', '?')}`)
          .all('[]');
      });
      expect(rows).toEqual([]);
    });
  });
}
