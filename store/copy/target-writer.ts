import type { PgDatabase } from '../postgres/pg-database.js';
import type { TablePlan } from './plan-table.js';
import type { CopyPage } from './read-pages.js';

/** PostgreSQL binds at most 65,535 parameters per statement: a wider page is written in several, in one transaction. */
const MAX_BIND_PARAMETERS = 65_535;

/** How far a table's copy got: its last key (copy-tables.ts encodeCopyKey) and the source rows copied. */
export interface TableProgress {
  lastKey: string;
  rows: number;
}

export interface TargetWriter {
  /** what earlier runs of this copy wrote, per table */
  readProgress(): Map<string, TableProgress>;
  /** one transaction: the page's rows (a row already there is left as it is) and the table's progress after it */
  writePage(plan: TablePlan, page: CopyPage, progress: TableProgress): void;
  /** sets each identity column's sequence past the table's largest value, so new rows never reuse a copied id */
  moveSequences(plan: TablePlan): void;
}

/**
 * Writes pages into PostgreSQL as multi-row INSERTs with the source's own values: ids of identity columns kept
 * (`OVERRIDING SYSTEM VALUE` for sessions.position, GENERATED ALWAYS), bytea as the exact bytes read, and
 * `ON CONFLICT DO NOTHING`, so a row written ahead of its page (a prompt parent) or by an interrupted run is not
 * written twice. The page and tokentap_copy_progress commit together: a resumed copy starts exactly after the last
 * page that committed.
 *
 * @example
 * const writer = createTargetWriter(pg);
 * writer.writePage(plan, page, { lastKey: encodeCopyKey(plan.table, page.lastKey), rows: done + page.count });
 */
export function createTargetWriter(database: PgDatabase): TargetWriter {
  const saveProgress = database.prepare<[string, string, number]>(
    `INSERT INTO tokentap_copy_progress (table_name, last_key, rows) VALUES (?, ?, ?)
     ON CONFLICT (table_name) DO UPDATE SET last_key = excluded.last_key, rows = excluded.rows`,
  );
  const selectProgress = database.prepare<[], { table_name: string; last_key: string; rows: number }>(
    `SELECT table_name, last_key, rows FROM tokentap_copy_progress`,
  );

  function insert(plan: TablePlan, rows: unknown[][]): void {
    const columns = plan.targetColumns;
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const placeholders = row.map((value, index) => {
        values.push(value);
        return plan.jsonb[index] === true ? `$${values.length}::jsonb` : `$${values.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    const overriding = plan.overriding ? ' OVERRIDING SYSTEM VALUE' : '';
    database.request({
      kind: 'query',
      name: null,
      text: `INSERT INTO "${plan.table.name}" (${columns.map((name) => `"${name}"`).join(', ')})${overriding}
             VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`,
      values,
      rowMode: null,
    });
  }

  const writePage = database.transaction((plan: TablePlan, page: CopyPage, progress: TableProgress) => {
    const perStatement = Math.max(1, Math.floor(MAX_BIND_PARAMETERS / plan.targetColumns.length));
    for (let start = 0; start < page.rows.length; start += perStatement) insert(plan, page.rows.slice(start, start + perStatement));
    saveProgress.run(plan.table.name, progress.lastKey, progress.rows);
  });

  return {
    readProgress: () => new Map(selectProgress.all().map((row) => [row.table_name, { lastKey: row.last_key, rows: row.rows }])),
    writePage: (plan, page, progress) => writePage(plan, page, progress),
    moveSequences(plan) {
      for (const column of plan.identityColumns) {
        // is_called false: the next value handed out is max + 1 itself (1 for an empty table)
        database.exec(
          `SELECT setval(pg_get_serial_sequence('"${plan.table.name}"', '${column}'), coalesce((SELECT max("${column}") FROM "${plan.table.name}"), 0) + 1, false)`,
        );
      }
    },
  };
}
