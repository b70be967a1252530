import type { Migration } from './migration.js';

/**
 * Several `tokentap serve` processes may write one database (a rolling restart overlaps the old process's drain
 * with the new one's start; a fleet runs a gateway per backend replica). Each registers itself and tags the calls
 * it begins, so one starting up marks `incomplete` only the calls of processes that are gone, never the calls
 * another live gateway is still streaming (docs/reliability.md, "Several gateways on one database").
 */
export const gatewayInstancesMigration: Migration = {
  version: 5,
  name: 'gateway-instances',
  sql: `
CREATE TABLE gateway_instances (
  id TEXT PRIMARY KEY,
  -- host name, for people reading the table
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  -- where pid names this process: the kernel's boot id and PID namespace on Linux, the host name elsewhere; a
  -- gateway in the same scope tells a dead one by its pid, any other by seen_at
  process_scope TEXT NOT NULL,
  -- the process's start time as its kernel counts it (Linux /proc/PID/stat), so a reused pid is not taken for it
  process_start TEXT,
  started_at INTEGER NOT NULL,
  -- refreshed while the gateway runs
  seen_at INTEGER NOT NULL
) STRICT;

-- the gateway process that began the call; NULL for calls recorded before this column or outside a gateway
ALTER TABLE calls ADD COLUMN instance_id TEXT;

CREATE INDEX calls_in_progress_by_instance ON calls (instance_id) WHERE status = 'in_progress';
`,
};
