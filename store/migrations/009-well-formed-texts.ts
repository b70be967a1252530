import type Database from 'better-sqlite3';
import { wellFormedText } from '../well-formed-text.js';
import type { Migration } from './migration.js';

/**
 * The store's own text columns, which a store writes through wellFormedText since U+0000 became U+FFFD there
 * (well-formed-text.ts), per table. A key or id is not among them: it cannot change without its references.
 */
export const OWN_TEXT_COLUMNS: ReadonlyArray<{ table: string; key: string; columns: readonly string[] }> = [
  {
    table: 'calls',
    key: 'rowid',
    columns: [
      'front_door',
      'path',
      'requested_model',
      'backend_model',
      'policy_version',
      'backend_id',
      'finish_reason',
      'stop_reason',
      'weight_version',
    ],
  },
  { table: 'rewards', key: 'rowid', columns: ['source'] },
  { table: 'policy_versions', key: 'rowid', columns: ['version'] },
  // WITHOUT ROWID tables, by their primary key
  { table: 'group_acks', key: 'group_id', columns: ['consumer'] },
  { table: 'batch_leases', key: 'batch_id', columns: ['consumer'] },
];

/**
 * Schema 9: a store written before U+0000 became U+FFFD in its own texts (paths, models, versions, finish and stop
 * reasons, reward sources, consumers) and in tags gets the texts it would be written with today. SQLite could hold
 * them, PostgreSQL cannot: `tokentap migrate --from --to` stopped at the first such row, and a tag holding one broke
 * PostgreSQL's tag filters. On SQLite too a tag filter, which matches tags as stored, could not find such a tag.
 * Rows are found by their bytes (`instr` over the text as a BLOB; SQLite's text functions stop at U+0000), then
 * rewritten in code. JSON columns keep U+0000 escaped and bodies their bytes, as a new store does.
 */
export const wellFormedTextsMigration: Migration = {
  version: 9,
  name: 'well-formed-texts',
  sql: `-- rows are rewritten in code (rewrite below)`,
  rewrite: rewriteNulTexts,
};

/**
 * SQLite: whether a column's value is a text holding U+0000, found by its bytes (SQLite's text functions stop at or
 * pass over U+0000). Also the copy's check for texts PostgreSQL cannot hold (store/copy/find-nul-text.ts).
 *
 * @example `SELECT id FROM sessions WHERE ${sqliteHoldsNul('id')}`
 */
export function sqliteHoldsNul(column: string): string {
  return `(typeof("${column}") = 'text' AND instr(CAST("${column}" AS BLOB), x'00') > 0)`;
}

function rewriteNulTexts(database: Database.Database): void {
  // one scan per table: a large store's calls are read once, not once per column
  for (const { table, key, columns } of OWN_TEXT_COLUMNS) {
    const holds = columns.map(sqliteHoldsNul);
    const found = database
      .prepare(`SELECT ${key} AS at, ${columns.map((column) => `"${column}"`).join(', ')} FROM "${table}" WHERE ${holds.join(' OR ')}`)
      .all() as Array<Record<string, unknown>>;
    const update = database.prepare(`UPDATE "${table}" SET ${columns.map((column) => `"${column}" = @${column}`).join(', ')} WHERE ${key} = @at`);
    for (const row of found)
      update.run(
        Object.fromEntries(
          Object.entries(row).map(([name, value]) => [name, name === 'at' ? value : wellFormedText(value as string | number | null)]),
        ),
      );
  }
  // tags are a JSON array, U+0000 escaped in its text
  const tagged = database.prepare(`SELECT rowid AS at, tags FROM sessions WHERE instr(tags, '\\u0000') > 0`).all() as Array<{
    at: number;
    tags: string;
  }>;
  const updateTags = database.prepare(`UPDATE sessions SET tags = ? WHERE rowid = ?`);
  for (const row of tagged) {
    const tags = JSON.stringify((JSON.parse(row.tags) as string[]).map(wellFormedText));
    if (tags !== row.tags) updateTags.run(tags, row.at);
  }
}
