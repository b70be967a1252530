import type { Migration } from './migration.js';

/**
 * Rollouts (docs/rollouts.md): a session's lifecycle and rollout fields, session keys (hashes only), rewards
 * with their history, GRPO groups and policy versions.
 *
 * Sessions keep one row whoever made them: `origin` says whether the rollout API created it (`api`, it has a key
 * and ends by idle timeout) or a call's base URL did (`implicit`, the pre-rollout behaviour). Rewards are
 * append-only: the newest row per (session, call) is the reward, the older ones are its history.
 */
export const rolloutsMigration: Migration = {
  version: 2,
  name: 'rollouts',
  sql: `
CREATE TABLE groups (
  id            TEXT PRIMARY KEY,
  -- how many sessions make the group; null until declared (a session may name a group first)
  expected_size INTEGER CHECK (expected_size IS NULL OR expected_size > 0),
  metadata      TEXT NOT NULL,
  created_at    REAL NOT NULL,
  -- set once, when expected_size of its sessions have ended
  completed_at  REAL
) STRICT;

ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'implicit' CHECK (origin IN ('implicit', 'api'));
ALTER TABLE sessions ADD COLUMN status TEXT NOT NULL DEFAULT 'open'
  CHECK (status IN ('open', 'completed', 'truncated', 'failed', 'aborted'));
ALTER TABLE sessions ADD COLUMN group_id TEXT REFERENCES groups (id);
ALTER TABLE sessions ADD COLUMN task TEXT;           -- JSON, as the caller gave it
ALTER TABLE sessions ADD COLUMN tags TEXT;           -- JSON array of strings
ALTER TABLE sessions ADD COLUMN split TEXT CHECK (split IS NULL OR split IN ('train', 'val', 'test'));
ALTER TABLE sessions ADD COLUMN sampling TEXT;       -- JSON: overrides applied to every backend request
ALTER TABLE sessions ADD COLUMN ended_at REAL;
ALTER TABLE sessions ADD COLUMN end_reason TEXT;     -- 'explicit' | 'idle-timeout'

CREATE INDEX sessions_by_group ON sessions (group_id) WHERE group_id IS NOT NULL;
CREATE INDEX sessions_open_rollouts ON sessions (activity_at) WHERE origin = 'api' AND status = 'open';

-- sha256 of a session key: the key itself is handed out once and never stored
CREATE TABLE session_keys (
  key_hash   BLOB PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE REFERENCES sessions (id),
  created_at REAL NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE rewards (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id),
  call_id    TEXT REFERENCES calls (id),  -- null: the reward of the whole session
  value      REAL NOT NULL,
  components TEXT,                        -- JSON object of named numbers, or null
  source     TEXT NOT NULL,               -- 'admin' | 'session-key' | 'library'
  created_at REAL NOT NULL
) STRICT;

CREATE INDEX rewards_by_target ON rewards (session_id, call_id, id);

-- every weight version set, in order; the newest row is the current one
CREATE TABLE policy_versions (
  id      INTEGER PRIMARY KEY,
  version TEXT NOT NULL,
  set_at  REAL NOT NULL
) STRICT;
`,
};
