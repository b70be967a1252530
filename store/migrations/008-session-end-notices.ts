import type { Migration } from './migration.js';

/**
 * Schema 8 keeps both engines' numbers equal: PostgreSQL's step 8 (store/postgres/migrations/008-session-end-notices.ts)
 * makes the server announce each session that ends, so that gateways on other hosts may keep rollout rows in memory.
 * SQLite needs nothing: its gateways read a row for the cost of a lookup, and no notice could cross its processes.
 */
export const sessionEndNoticesMigration: Migration = {
  version: 8,
  name: 'session-end-notices',
  sql: `-- nothing changes on SQLite (see the PostgreSQL step)`,
};
