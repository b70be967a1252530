import type { Migration } from './migration.js';

/**
 * The online pull API's acknowledgements (docs/export.md, "Online pull API"): a complete group a consumer
 * acknowledged is consumed and never served again, also after a restart. Leases themselves live in the gateway's
 * memory only: a lease that a restart forgets returns its groups to the pool, which at-least-once delivery allows.
 */
export const batchesMigration: Migration = {
  version: 3,
  name: 'batches',
  sql: `
CREATE TABLE group_acks (
  group_id TEXT PRIMARY KEY REFERENCES groups (id),
  -- the pull batch whose ack consumed the group
  batch_id TEXT NOT NULL,
  -- who pulled it (the consumer name given with the pull)
  consumer TEXT NOT NULL,
  acked_at REAL NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX group_acks_by_batch ON group_acks (batch_id);

-- the pool is read oldest completion first
CREATE INDEX groups_by_completion ON groups (completed_at, id) WHERE completed_at IS NOT NULL;
`,
};
