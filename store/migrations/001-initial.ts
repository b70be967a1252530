import type { Migration } from './migration.js';

/**
 * The first schema: sessions, calls, their bodies, and the content-addressed blobs bodies point at.
 *
 * Times are REAL because they are JS numbers: epoch ms from Date.now() and durations that may carry
 * fractions from performance.now(); REAL holds both exactly. Small columns come before BLOB columns so
 * aggregations read only the first page of a row.
 */
export const initialMigration: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  created_at  REAL NOT NULL,
  -- start of the newest call (or created_at): orders listSessions without aggregating every call
  activity_at REAL NOT NULL,
  metadata    TEXT NOT NULL
) STRICT;

CREATE INDEX sessions_by_activity ON sessions (activity_at DESC, id);

-- Each distinct JSON part of a body (a message, a tools array), deflated, stored once.
CREATE TABLE blobs (
  id   INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,  -- sha256 of the JSON text
  data BLOB NOT NULL          -- zlib deflate of the JSON text
) STRICT;

-- Arrays of blobs as shared linked lists, so a messages array that grows by two each turn adds two
-- rows, not a whole new list of references (which would grow quadratically over a session).
CREATE TABLE blob_lists (
  id          INTEGER PRIMARY KEY,
  hash        BLOB NOT NULL UNIQUE,  -- sha256(previous list hash || element blob hash)
  previous_id INTEGER REFERENCES blob_lists (id),
  blob_id     INTEGER NOT NULL REFERENCES blobs (id),
  length      INTEGER NOT NULL
) STRICT;

CREATE TABLE calls (
  id                     TEXT PRIMARY KEY,
  session_id             TEXT NOT NULL REFERENCES sessions (id),
  seq                    INTEGER NOT NULL,
  status                 TEXT NOT NULL
    CHECK (status IN ('in_progress', 'ok', 'backend_error', 'aborted', 'incomplete')),
  front_door             TEXT NOT NULL,
  path                   TEXT NOT NULL,
  requested_model        TEXT,
  backend_model          TEXT,
  stream                 INTEGER NOT NULL CHECK (stream IN (0, 1)),
  policy_version         TEXT,
  sampling_params        TEXT NOT NULL,
  metadata               TEXT NOT NULL,
  started_at             REAL NOT NULL,
  ended_at               REAL,
  time_to_first_token_ms REAL,
  total_ms               REAL,
  token_source           TEXT CHECK (token_source IN ('backend', 'none')),
  finish_reason          TEXT,
  stop_reason            ANY,  -- a matched stop string or a stop token id: ANY keeps which
  usage                  TEXT,
  error                  TEXT,
  http_status            INTEGER,
  flags                  TEXT NOT NULL DEFAULT '[]',
  -- ids counted when recorded, else the backend's usage counts: cheap sums for listSessions
  prompt_tokens          INTEGER,
  completion_tokens      INTEGER,
  -- prompt ids = first prompt_prefix_length ids of the parent's (prompt ++ completion), then prompt_tail
  prompt_parent_id       TEXT REFERENCES calls (id),
  prompt_prefix_length   INTEGER,
  prompt_tail            BLOB,  -- Int32 little-endian
  completion_token_ids   BLOB,  -- Int32 little-endian
  completion_logprobs    BLOB,  -- Float32 little-endian
  UNIQUE (session_id, seq),
  CHECK ((prompt_tail IS NULL) = (prompt_prefix_length IS NULL)),
  CHECK (prompt_parent_id IS NOT NULL OR prompt_prefix_length IS NULL OR prompt_prefix_length = 0)
) STRICT;

CREATE INDEX calls_in_progress ON calls (status) WHERE status = 'in_progress';
CREATE INDEX calls_session_totals
  ON calls (session_id, status, prompt_tokens, completion_tokens, started_at);

-- Bodies apart from calls: they are large and read only on demand.
CREATE TABLE call_bodies (
  call_id              TEXT PRIMARY KEY REFERENCES calls (id),
  request_body         BLOB NOT NULL,  -- deflated body envelope, see body-store.ts
  backend_request_body BLOB NOT NULL,
  response_body        BLOB,           -- deflated JSON
  response_stream      BLOB            -- deflated raw SSE text
) STRICT;
`,
};
