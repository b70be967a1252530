import { initialMigration } from './001-initial.js';
import { rolloutsMigration } from './002-rollouts.js';
import { batchesMigration } from './003-batches.js';
import { chatRequestBodyMigration } from './004-chat-request-body.js';
import { gatewayInstancesMigration } from './005-gateway-instances.js';
import { callBackendMigration } from './006-call-backend.js';
import { batchLeasesMigration } from './007-batch-leases.js';
import { sessionEndNoticesMigration } from './008-session-end-notices.js';
import { wellFormedTextsMigration } from './009-well-formed-texts.js';
import type { Migration } from './migration.js';

/** Every migration in order. Append new ones; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  initialMigration,
  rolloutsMigration,
  batchesMigration,
  chatRequestBodyMigration,
  gatewayInstancesMigration,
  callBackendMigration,
  batchLeasesMigration,
  sessionEndNoticesMigration,
  wellFormedTextsMigration,
];

/** The schema version this tokentap writes and reads. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;
