import type { Migration } from './migration.js';

/**
 * A fleet serves calls from many backend replicas (issue 15), and a backend can report the weights it sampled with
 * (SGLang's `weight_version`). Each call records the replica that served it and that version beside tokentap's own
 * policy version, so a call served by a replica whose weights lag the trainer's update can be found (and is flagged
 * `weight_version_mismatch`).
 */
export const callBackendMigration: Migration = {
  version: 6,
  name: 'call-backend',
  sql: `
-- the fleet id of the backend replica that served the call (the one a failover moved it to, if it was moved); NULL
-- for calls recorded before this column or outside a gateway
ALTER TABLE calls ADD COLUMN backend_id TEXT;

-- the backend's own version of the weights it sampled with (SGLang meta_info.weight_version, chat
-- metadata.weight_version); NULL when the backend reported none (vLLM) or for calls recorded before this column
ALTER TABLE calls ADD COLUMN weight_version TEXT;
`,
};
