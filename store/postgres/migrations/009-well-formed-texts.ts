import type { Migration } from '../../migrations/migration.js';

/**
 * Schema 9 keeps both engines' numbers equal: SQLite's step 9 (store/migrations/009-well-formed-texts.ts) rewrites
 * U+0000 in the store's own texts as U+FFFD, which a SQLite store written before that rule could hold. PostgreSQL's
 * text cannot hold U+0000 at all, so it has nothing to rewrite.
 */
export const postgresWellFormedTextsMigration: Migration = {
  version: 9,
  name: 'well-formed-texts',
  sql: `SELECT 1 -- nothing changes on PostgreSQL (see the SQLite step)`,
};
