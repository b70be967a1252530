import type { Migration } from '../../migrations/migration.js';
import { postgresInitialMigration } from './006-initial.js';
import { postgresBatchLeasesMigration } from './007-batch-leases.js';
import { postgresSessionEndNoticesMigration } from './008-session-end-notices.js';
import { postgresWellFormedTextsMigration } from './009-well-formed-texts.js';

/**
 * PostgreSQL's schema steps, numbered by the SQLite schema version each brings the database to (the first one takes
 * it to 6 at once): a version names the same data model on both engines. A later step is added here and in
 * store/migrations/migrations.ts together, with the same number.
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  postgresInitialMigration,
  postgresBatchLeasesMigration,
  postgresSessionEndNoticesMigration,
  postgresWellFormedTextsMigration,
];
