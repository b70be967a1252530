import type Database from 'better-sqlite3';
import { sqliteHoldsNul } from '../migrations/009-well-formed-texts.js';
import { refused, type TablePlan } from './plan-table.js';

/**
 * Refuses (STORE_COPY_REFUSED) a source holding U+0000 in a text PostgreSQL cannot hold, before anything is written:
 * the store's own texts were rewritten by schema 9 (store/migrations/009-well-formed-texts.ts) when the copy migrated
 * the source, so what is left is an id or a key (a session, call, group or batch id, written through the library
 * before ids holding U+0000 were refused), which cannot change without its references. The message names the table,
 * the column and the row. One scan per table with a text column.
 *
 * @example assertNoNulTexts(source.database, plans); // throws for a session id 'a\u0000'
 */
export function assertNoNulTexts(source: Database.Database, plans: readonly TablePlan[]): void {
  for (const plan of plans) {
    const columns = textColumns(source, plan.table.name);
    if (columns.length === 0) continue;
    const found = source
      .prepare(
        `SELECT ${plan.table.key} AS at, ${columns.map((column) => `${sqliteHoldsNul(column)} AS "${column}"`).join(', ')}
           FROM "${plan.table.name}" WHERE ${columns.map(sqliteHoldsNul).join(' OR ')} LIMIT 1`,
      )
      .get() as Record<string, unknown> | undefined;
    if (found === undefined) continue;
    const column = columns.find((name) => found[name] === 1) as string;
    const at = Buffer.isBuffer(found.at) ? `key ${found.at.toString('hex')}` : `${plan.table.key} ${JSON.stringify(found.at)}`;
    throw refused(
      `the SQLite store's ${plan.table.name}.${column} holds U+0000 (NUL) in the row at ${at}, which PostgreSQL's text cannot hold; ` +
        'an id cannot change without its references, so this store cannot be copied as it is',
    );
  }
}

/** The columns that may hold text: declared TEXT or ANY (STRICT tables declare every column). */
function textColumns(source: Database.Database, table: string): string[] {
  const columns = source.pragma(`table_info("${table}")`) as Array<{ name: string; type: string }>;
  return columns.filter((column) => column.type === 'TEXT' || column.type === 'ANY').map((column) => column.name);
}
