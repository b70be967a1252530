import { dialectOf, type SqlDatabase } from './sql/sql-database.js';
import { groupFilterParameters, groupMatchesFilters } from './servable-group-filter.js';
import { wellFormedText } from './well-formed-text.js';
import type { BatchLeaseEnd, BatchLeaseRow, LeaseBatchInput, ServableGroupsFilter } from './types.js';

/** The pull API's leases (open-store.ts exposes them on Store). @example createLeaseQueries(database).get('b-1', Date.now()) */
export interface LeaseQueries {
  lease(input: LeaseBatchInput): BatchLeaseRow | null;
  get(batchId: string, at: number): BatchLeaseRow | null;
  listLive(at: number): BatchLeaseRow[];
  release(batchId: string, at: number): BatchLeaseEnd | null;
  acknowledge(batchId: string, at: number): BatchLeaseEnd | null;
}

interface LeaseRecord {
  batch_id: string;
  consumer: string;
  group_ids: string;
  leased_at: number;
  expires_at: number;
  ended: 'released' | 'acknowledged' | 'expired' | null;
  ended_at: number | null;
}

/** An acknowledged group's leased_groups row expires at the latest time a JS Date holds: never, so no lease takes it. */
const CONSUMED_EXPIRES_AT = 8.64e15;
/**
 * How often one lease selects again for groups a concurrent lease (another gateway's) took between this one's
 * select and its insert: each round sees the other's commit, so a second round is rare and a third rarer still.
 */
const LEASE_ROUNDS = 4;

/** Thrown inside a transaction to roll it back: a lease too small, an ack whose groups were taken over. */
class RolledBack extends Error {}

/**
 * The pull API's leases in the database (docs/export.md, "Online pull API"), shared by every gateway on it. A group
 * is in at most one live lease: `leased_groups` holds one row per group, which a new lease takes over only once it
 * expired. On PostgreSQL, leases taken at once lock the groups they pick (`FOR NO KEY UPDATE ... SKIP LOCKED`), so
 * each passes over the other's; SQLite's IMMEDIATE transactions run one at a time. An ack claims its rows by
 * updating them (never expiring), so a lease taking them over after expiry and the ack exclude each other.
 *
 * @example
 * const leases = createLeaseQueries(database);
 * const lease = leases.lease({ batchId: 'b-1', consumer: 'trainer-0', minGroups: 1, maxGroups: 8, leasedAt: now, expiresAt: now + 60_000 });
 * leases.acknowledge('b-1', Date.now()); // { lease: { state: 'acknowledged', ... }, ended: true }
 */
export function createLeaseQueries(database: SqlDatabase): LeaseQueries {
  const postgres = dialectOf(database) === 'postgres';
  const selectCandidates = prepareCandidates(database);
  const insertLease = database.prepare<[string, string, number, number]>(
    `INSERT INTO batch_leases (batch_id, consumer, group_ids, leased_at, expires_at) VALUES (?, ?, '[]', ?, ?)`,
  );
  const setGroups = database.prepare<[string, string]>(`UPDATE batch_leases SET group_ids = ? WHERE batch_id = ?`);
  const takeGroup = database.prepare<[string, string, number, number]>(
    `INSERT INTO leased_groups (group_id, batch_id, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (group_id) DO UPDATE SET batch_id = excluded.batch_id, expires_at = excluded.expires_at
      WHERE leased_groups.expires_at <= ?`,
  );
  const selectLease = database.prepare<[string], LeaseRecord>(`SELECT * FROM batch_leases WHERE batch_id = ?`);
  // PostgreSQL: an ack and a release of one batch through two gateways at once run one after the other
  const selectLeaseLocked = database.prepare<[string], LeaseRecord>(`SELECT * FROM batch_leases WHERE batch_id = ?${postgres ? ' FOR UPDATE' : ''}`);
  const selectLive = database.prepare<[number], LeaseRecord>(
    `SELECT * FROM batch_leases WHERE ended IS NULL AND expires_at > ? ORDER BY leased_at, batch_id`,
  );
  const endLease = database.prepare<[string, number, string]>(`UPDATE batch_leases SET ended = ?, ended_at = ? WHERE batch_id = ?`);
  const claimGroups = database.prepare<[number, string]>(`UPDATE leased_groups SET expires_at = ? WHERE batch_id = ?`);
  const freeGroups = database.prepare<[string]>(`DELETE FROM leased_groups WHERE batch_id = ?`);
  const insertAck = database.prepare<[string, string, string, number]>(
    `INSERT INTO group_acks (group_id, batch_id, consumer, acked_at) VALUES (?, ?, ?, ?) ON CONFLICT (group_id) DO NOTHING`,
  );

  const lease = database.transaction((input: LeaseBatchInput): BatchLeaseRow | null => {
    const wanted = Math.max(1, input.minGroups);
    let candidates = selectCandidates(input.filters ?? {}, input.maxGroups, input.leasedAt);
    if (candidates.length < wanted) return null;
    insertLease.run(input.batchId, wellFormedText(input.consumer), input.leasedAt, input.expiresAt);
    const taken: string[] = [];
    for (let round = 1; candidates.length > 0; round += 1) {
      let lost = false;
      for (const groupId of candidates) {
        // 0 changes: another lease committed this group since the select (its row is live)
        if (takeGroup.run(groupId, input.batchId, input.expiresAt, input.leasedAt).changes > 0) taken.push(groupId);
        else lost = true;
      }
      if (!lost || taken.length >= input.maxGroups || round === LEASE_ROUNDS) break;
      candidates = selectCandidates(input.filters ?? {}, input.maxGroups - taken.length, input.leasedAt);
    }
    if (taken.length < wanted) throw new RolledBack();
    setGroups.run(JSON.stringify(taken), input.batchId);
    return toRow(selectLease.get(input.batchId) as LeaseRecord, input.leasedAt);
  });

  /** The lease locked for ending, and whether it is live at `at`. */
  function lockLive(batchId: string, at: number): { record: LeaseRecord; live: boolean } | null {
    const record = selectLeaseLocked.get(batchId);
    if (record === undefined) return null;
    return { record, live: toRow(record, at).state === 'live' };
  }

  /** Marks the lease ended and answers it as it stands now. */
  function end(record: LeaseRecord, how: 'released' | 'acknowledged' | 'expired', at: number, ended: boolean): BatchLeaseEnd {
    endLease.run(how, at, record.batch_id);
    return { lease: toRow({ ...record, ended: how, ended_at: at }, at), ended };
  }

  // a rolled-back claim leaves the lease's rows as they were; the savepoint undoes only the claim
  const claim = database.transaction((record: LeaseRecord, groupIds: string[]): void => {
    if (claimGroups.run(CONSUMED_EXPIRES_AT, record.batch_id).changes < groupIds.length) throw new RolledBack();
  });

  const acknowledge = database.transaction((batchId: string, at: number): BatchLeaseEnd | null => {
    const locked = lockLive(batchId, at);
    if (locked === null) return null;
    const { record, live } = locked;
    if (!live) return { lease: toRow(record, at), ended: false };
    const groupIds = JSON.parse(record.group_ids) as string[];
    try {
      claim(record, groupIds);
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
      // a lease on another gateway, whose clock read this one expired, took over some of its groups
      return end(record, 'expired', at, false);
    }
    for (const groupId of groupIds) insertAck.run(groupId, batchId, record.consumer, at);
    return end(record, 'acknowledged', at, true);
  });

  const release = database.transaction((batchId: string, at: number): BatchLeaseEnd | null => {
    const locked = lockLive(batchId, at);
    if (locked === null) return null;
    const { record, live } = locked;
    if (!live) return { lease: toRow(record, at), ended: false };
    const freed = freeGroups.run(batchId).changes;
    if (freed < (JSON.parse(record.group_ids) as string[]).length) return end(record, 'expired', at, false);
    return end(record, 'released', at, true);
  });

  return {
    lease(input) {
      try {
        return lease.immediate(input);
      } catch (error) {
        if (error instanceof RolledBack) return null;
        throw error;
      }
    },
    get(batchId, at) {
      const record = selectLease.get(batchId);
      return record === undefined ? null : toRow(record, at);
    },
    listLive: (at) => selectLive.all(at).map((record) => toRow(record, at)),
    release: (batchId, at) => release.immediate(batchId, at),
    acknowledge: (batchId, at) => acknowledge.immediate(batchId, at),
  };
}

/**
 * The select of servable groups a lease picks from: complete, never acknowledged, in no lease live at `@now`,
 * matching the pull's rollout-level filters as the pool's listing does (batch-queries.ts), oldest completion first.
 */
function prepareCandidates(database: SqlDatabase): (filters: ServableGroupsFilter, limit: number, now: number) => string[] {
  const statement = database.prepare<Record<string, unknown>, { id: string }>(
    `SELECT groups.id FROM groups
      WHERE groups.completed_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM group_acks WHERE group_acks.group_id = groups.id)
        AND NOT EXISTS (SELECT 1 FROM leased_groups WHERE leased_groups.group_id = groups.id AND leased_groups.expires_at > @now)
        AND ${groupMatchesFilters(database)}
      ORDER BY groups.completed_at, groups.id
      LIMIT @limit${dialectOf(database) === 'postgres' ? ' FOR NO KEY UPDATE OF groups SKIP LOCKED' : ''}`,
  );
  return (filters, limit, now) => {
    const parameters = { ...groupFilterParameters(filters), now, limit };
    return statement.all(parameters).map((row) => row.id);
  };
}

function toRow(record: LeaseRecord, at: number): BatchLeaseRow {
  const state = record.ended ?? (record.expires_at <= at ? 'expired' : 'live');
  return {
    batchId: record.batch_id,
    groupIds: JSON.parse(record.group_ids) as string[],
    consumer: record.consumer,
    leasedAt: record.leased_at,
    expiresAt: record.expires_at,
    state,
    endedAt: record.ended_at,
  };
}
