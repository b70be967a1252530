import type { Migration } from './migration.js';

/**
 * The pull API's leases move into the database (issue 17, "a fleet on one database"): any gateway on the store can
 * lease a batch, and a lease made through one gateway is acknowledged or released through another, or through the
 * same one after a restart. `leased_groups` keys each group once, so a group is in at most one live lease whichever
 * gateway leased it; a lease expires by time (`expires_at`), read when a lease is next taken or ended.
 */
export const batchLeasesMigration: Migration = {
  version: 7,
  name: 'batch-leases',
  sql: `
CREATE TABLE batch_leases (
  batch_id TEXT PRIMARY KEY,
  -- who pulled it (the consumer name given with the pull)
  consumer TEXT NOT NULL,
  -- the leased group ids in the order they were served, a JSON array
  group_ids TEXT NOT NULL,
  leased_at REAL NOT NULL,
  expires_at REAL NOT NULL,
  -- NULL while live or expired by time alone; 'expired' once an end found its groups taken over by a later lease
  ended TEXT CHECK (ended IS NULL OR ended IN ('released', 'acknowledged', 'expired')),
  ended_at REAL,
  CHECK ((ended IS NULL) = (ended_at IS NULL))
) STRICT, WITHOUT ROWID;

CREATE INDEX batch_leases_open ON batch_leases (expires_at) WHERE ended IS NULL;

-- the newest lease of each group: live while expires_at is in the future; an acknowledged group's row never expires
CREATE TABLE leased_groups (
  group_id TEXT PRIMARY KEY REFERENCES groups (id),
  batch_id TEXT NOT NULL REFERENCES batch_leases (batch_id),
  expires_at REAL NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX leased_groups_by_batch ON leased_groups (batch_id);
`,
};
