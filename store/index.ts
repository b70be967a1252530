/** The store's public surface: open a store, its contracts, its errors. */
export { openStore, DEFAULT_LIST_LIMIT } from './open-store.js';
export { DEFAULT_BUSY_TIMEOUT_MS } from './configure-connection.js';
export { StoreError, isStoreError, type StoreErrorCode } from './store-error.js';
export { findRewardProblem, isRewardNumber, MAX_REWARD_MAGNITUDE, type RewardProblem } from './find-reward-problem.js';
export { LATEST_SCHEMA_VERSION } from './migrations/migrations.js';
export { isPassingStoreFailure, mayHaveEndedTransaction } from './store-failure-kinds.js';
export { isPostgresUrl, redactPostgresUrl } from './postgres/open-postgres-store.js';
export {
  CALL_STATUSES,
  SESSION_END_STATUSES,
  SESSION_ORDER_KEYS,
  TRUSTED_CALL_FLAGS,
  untrustedFlags,
  type AddRewardInput,
  type BatchAckRow,
  type BatchLeaseEnd,
  type BatchLeaseRow,
  type BatchLeaseState,
  type LeaseBatchInput,
  type ServableGroupsFilter,
  type ServableGroupsQuery,
  type CreateRolloutInput,
  type DeclareGroupInput,
  type ExportUnitRow,
  type ExportUnitsFilter,
  type ExportUnitsQuery,
  type EndSessionInput,
  type GatewayInstanceRow,
  type GroupRow,
  type OrphanRecovery,
  type PolicyVersionRow,
  type RewardRow,
  type RolloutRow,
  type SessionEndReason,
  type SessionEndStatus,
  type SessionOrigin,
  type SessionStatus,
  type BeginCallInput,
  type CallBodies,
  type CallFlag,
  type CallRow,
  type CallStatus,
  type FinishCallInput,
  type OpenStoreOptions,
  type SessionFilter,
  type SessionListQuery,
  type SessionOrderKey,
  type SessionRow,
  type Store,
  type StoreStats,
  type TokenSource,
} from './types.js';
