import type { Migration } from '../../migrations/migration.js';

/**
 * SQLite's schema 7 (store/migrations/007-batch-leases.ts): the pull API's leases in the database, shared by every
 * gateway on it. Types as in 006-initial.ts (DOUBLE PRECISION for REAL, TEXT compared by bytes).
 */
export const postgresBatchLeasesMigration: Migration = {
  version: 7,
  name: 'batch-leases',
  sql: `
CREATE TABLE batch_leases (
  batch_id   TEXT COLLATE "C" PRIMARY KEY,
  consumer   TEXT COLLATE "C" NOT NULL,
  group_ids  TEXT COLLATE "C" NOT NULL,
  leased_at  DOUBLE PRECISION NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL,
  ended      TEXT COLLATE "C" CHECK (ended IS NULL OR ended IN ('released', 'acknowledged', 'expired')),
  ended_at   DOUBLE PRECISION,
  CHECK ((ended IS NULL) = (ended_at IS NULL))
);
CREATE INDEX batch_leases_open ON batch_leases (expires_at) WHERE ended IS NULL;

CREATE TABLE leased_groups (
  group_id   TEXT COLLATE "C" PRIMARY KEY REFERENCES groups (id),
  batch_id   TEXT COLLATE "C" NOT NULL REFERENCES batch_leases (batch_id),
  expires_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX leased_groups_by_batch ON leased_groups (batch_id);
`,
};
