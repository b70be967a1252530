import { createBodyStore } from './body-store.js';
import { createCallReader } from './call-reader.js';
import { createCallWriter, type CallWriter } from './call-writer.js';
import { createPromptDelta } from './prompt-delta.js';
import { SequenceCache } from './sequence-cache.js';
import { createSessionQueries } from './session-queries.js';
import { createGroupQueries } from './group-queries.js';
import { createRolloutQueries } from './rollout-queries.js';
import { createRewardQueries } from './reward-queries.js';
import { createBatchQueries } from './batch-queries.js';
import { createLeaseQueries } from './lease-queries.js';
import { createExportQueries } from './export-queries.js';
import { createInstanceQueries } from './instance-queries.js';
import { createTokenFaithfulQueries } from './token-faithful-queries.js';
import { createOverviewQueries } from './overview-queries.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { isStorableId } from './storable-id.js';
import type { SqlDatabase } from './sql/sql-database.js';
import type { SessionEndListener, SessionEndWatch, Store, StoreStats } from './types.js';

/** Sessions per `listSessions` page when no limit is given. */
export const DEFAULT_LIST_LIMIT = 50;

/** What differs between the engines once a connection is open: sizes, integrity checks, closing. */
export interface StoreEngine {
  database: SqlDatabase;
  /** the file path, or the PostgreSQL URL without its password: for messages */
  label: string;
  readonly: boolean;
  bytesOnDisk(): number;
  integrityCheck(): string;
  /** a watch on the sessions that end (PostgreSQL); absent: none (Store.watchSessionEnds answers null) */
  watchSessionEnds?: (listener: SessionEndListener) => SessionEndWatch;
  close(): void;
}

/**
 * The store contract (types.ts) over an open connection of either engine: the query modules are shared, and each
 * picks its engine's SQL where the two differ (sql/sql-database.ts `sqlFor`).
 */
export function createStore(engine: StoreEngine): Store {
  const { database, label, readonly } = engine;
  const cache = new SequenceCache();
  const sessions = createSessionQueries(database);
  const bodies = createBodyStore(database);
  const delta = createPromptDelta({ database, cache });
  const reader = createCallReader({ database, bodies, delta });
  const writer = createCallWriter({ database, sessions, bodies, delta });
  const groups = createGroupQueries(database);
  const rollouts = createRolloutQueries(database, groups);
  const rewards = createRewardQueries(database);
  const batches = createBatchQueries(database);
  const leases = createLeaseQueries(database);
  const exportQueries = createExportQueries(database);
  const instances = createInstanceQueries(database);
  const tokenFaithful = createTokenFaithfulQueries(database);
  const overview = createOverviewQueries(database);
  // one snapshot for the lot, as listCalls reads one session; the rewards' read travels with the calls' on PostgreSQL
  const callsAndRewardsOf = database.transaction((sessionIds: readonly string[]) => {
    const ids = JSON.stringify(sessionIds.filter(isStorableId));
    const rewardsOf = rewards.queueCurrentOf(ids);
    const callsOf = reader.listCallsOf(ids);
    const rewardsBySession = rewardsOf();
    return new Map(
      sessionIds.map((sessionId) => [sessionId, { calls: callsOf.get(sessionId) ?? [], rewards: rewardsBySession.get(sessionId) ?? [] }]),
    );
  });
  const countRows = database.prepare<[], { sessions: number; calls: number }>(
    `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM calls) AS calls`,
  );

  function writable(): CallWriter {
    if (readonly) throw new TokentapError('STORE_READONLY', { message: `the store at ${label} was opened read-only` });
    return writer;
  }

  function whenWritable<T>(work: () => T): T {
    writable();
    return work();
  }

  return {
    ensureSession(sessionId, metadata = {}) {
      writable();
      return sessions.ensure(sessionId, metadata, Date.now());
    },
    getSession: (sessionId) => sessions.get(sessionId),
    listSessions: ({ limit, offset, ...filter } = {}) => sessions.list(filter, limit ?? DEFAULT_LIST_LIMIT, offset ?? 0),
    countSessions: (filter = {}) => sessions.count(filter),
    beginCall: (input) => writable().beginCall(input),
    finishCall: (callId, result) => writable().finishCall(callId, result),
    beginCallLater: (input) => writable().beginCallLater(input),
    finishCallLater: (callId, result) => writable().finishCallLater(callId, result),
    markCallsIncomplete: (callIds) => writable().markIncomplete(callIds),
    batch(work) {
      writable();
      const transaction = database.transaction(work);
      try {
        return transaction.immediate();
      } catch (error) {
        // finishCall caches a call's tokens as a future prompt parent once its savepoint is released (and the writer
        // what it wrote: body parts, prompt candidates); if the whole batch then fails to commit, those entries name
        // rows that do not exist: forget them all
        cache.clear();
        writer.forget();
        throw error;
      }
    },
    getCall: (callId) => reader.getCall(callId),
    getCallBodies: (callId, options) => reader.getCallBodies(callId, options),
    listCalls: (sessionId) => reader.listCalls(sessionId),
    listCallsAndRewards: (sessionIds) => (sessionIds.length === 0 ? new Map() : callsAndRewardsOf.deferred(sessionIds)),
    listTokenFaithfulCallIds: (sessionId, limit) => tokenFaithful.listCallIds(sessionId, limit),
    registerInstance: (row) => whenWritable(() => instances.register(row)),
    touchInstance: (id, at) => whenWritable(() => instances.touch(id, at)),
    removeInstance: (id) => whenWritable(() => instances.remove(id)),
    recoverOrphanedCalls: (isLive) => whenWritable(() => instances.recoverOrphans(isLive)),
    createRollout: (input) => whenWritable(() => rollouts.create(input)),
    getRollout: (sessionId) => rollouts.get(sessionId),
    getRollouts: (sessionIds) => rollouts.getMany(sessionIds),
    findSessionByKeyHash: (keyHash) => rollouts.findByKeyHash(keyHash),
    endSession: (sessionId, input) => whenWritable(() => rollouts.end(sessionId, input)),
    listIdleRollouts: (before) => rollouts.listIdle(before),
    addReward: (input) => whenWritable(() => rewards.add(input)),
    listRewards: (sessionId, options = {}) => rewards.list(sessionId, options.history === true),
    declareGroup: (input) => whenWritable(() => groups.declare(input)),
    getGroup: (groupId) => groups.get(groupId),
    setPolicyVersion: (version, setAt) => whenWritable(() => rewards.setPolicyVersion(version, setAt)),
    getPolicyVersion: () => rewards.getPolicyVersion(),
    listServableGroups: (query) => batches.listServableGroups(query),
    ackGroups: (batchId, groupIds, consumer, at) => whenWritable(() => batches.ackGroups(batchId, groupIds, consumer, at)),
    getBatchAck: (batchId) => batches.getBatchAck(batchId),
    leaseBatch: (input) => whenWritable(() => leases.lease(input)),
    getBatchLease: (batchId, at) => leases.get(batchId, at),
    listLiveBatchLeases: (at) => leases.listLive(at),
    releaseBatch: (batchId, at) => whenWritable(() => leases.release(batchId, at)),
    acknowledgeBatch: (batchId, at) => whenWritable(() => leases.acknowledge(batchId, at)),
    listExportUnits: (query) => exportQueries.listUnits(query),
    countExportSessions: (filter) => exportQueries.countSessions(filter),
    listPolicyVersions: () => exportQueries.listPolicyVersions(),
    stats(): StoreStats {
      const counts = countRows.get() as { sessions: number; calls: number };
      return { ...counts, bytesOnDisk: engine.bytesOnDisk() };
    },
    countCallsByStatus: () => overview.callStatusCounts(),
    countGroups: () => overview.countGroups(),
    readChangeMark: () => overview.readChangeMark(),
    listGroupSummaries: () => overview.listGroupSummaries(),
    listSessionCallKinds: (sessionIds) => overview.sessionCallKinds(sessionIds),
    integrityCheck: () => engine.integrityCheck(),
    watchSessionEnds: (listener) => engine.watchSessionEnds?.(listener) ?? null,
    close() {
      cache.clear();
      engine.close();
    },
  };
}
