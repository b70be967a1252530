import { ignoreConflicts, jsonArrayElements, type SqlDatabase } from './sql/sql-database.js';
import { groupFilterParameters, groupMatchesFilters } from './servable-group-filter.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { assertStorableId, isStorableId } from './storable-id.js';
import { wellFormedText } from './well-formed-text.js';
import type { BatchAckRow, ServableGroupsQuery } from './types.js';

/** The pull API's store queries (open-store.ts exposes them on Store). @example createBatchQueries(database).getBatchAck('b-1') */
export interface BatchQueries {
  ackGroups(batchId: string, groupIds: readonly string[], consumer: string, at: number): number;
  listServableGroups(query: ServableGroupsQuery): string[];
  getBatchAck(batchId: string): BatchAckRow | null;
}

interface AckRecord {
  group_id: string;
  consumer: string;
  acked_at: number;
}

/**
 * The pull API's pool (docs/export.md, "Online pull API"): complete groups nobody acknowledged, oldest completion
 * first, and the acknowledgements that consume them for good.
 *
 * @example
 * const batches = createBatchQueries(database);
 * const groupIds = batches.listServableGroups({ limit: 8, excludeIds: leased });
 * batches.ackGroups('batch-1', groupIds, 'trainer-0', Date.now());
 */
export function createBatchQueries(database: SqlDatabase): BatchQueries {
  // rollout-level filters pick groups here (one matching session is enough); the export applies them again per
  // rollout inside the served groups. Tags: the session carries every tag asked for.
  const selectServable = database.prepare<
    {
      limit: number;
      exclude: string;
      filtered: number;
      since: number | null;
      until: number | null;
      split: string | null;
      tags: string;
      tagCount: number;
    },
    { id: string }
  >(
    `SELECT groups.id FROM groups
      WHERE groups.completed_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM group_acks WHERE group_acks.group_id = groups.id)
        AND groups.id NOT IN (SELECT excluded.value FROM ${jsonArrayElements(database, '@exclude', 'excluded')})
        AND ${groupMatchesFilters(database)}
      ORDER BY groups.completed_at, groups.id
      LIMIT @limit`,
  );
  const selectGroup = database.prepare<[string], { completed_at: number | null }>(`SELECT completed_at FROM groups WHERE id = ?`);
  const insertAck = database.prepare<[string, string, string, number]>(
    ignoreConflicts(database, `INSERT OR IGNORE INTO group_acks (group_id, batch_id, consumer, acked_at) VALUES (?, ?, ?, ?)`),
  );
  const selectAcks = database.prepare<[string], AckRecord>(
    `SELECT group_id, consumer, acked_at FROM group_acks WHERE batch_id = ? ORDER BY acked_at, group_id`,
  );

  const ackGroups = database.transaction((batchId: string, groupIds: readonly string[], consumer: string, at: number): number => {
    assertStorableId(batchId, 'batch id');
    let acked = 0;
    for (const groupId of groupIds) {
      const group = selectGroup.get(groupId);
      if (group === undefined) throw new TokentapError('STORE_INVALID_INPUT', { message: `no group with id ${groupId} to acknowledge` });
      if (group.completed_at === null)
        throw new TokentapError('STORE_INVALID_INPUT', { message: `group ${groupId} is not complete; only complete groups are served` });
      // a group acknowledged before keeps its first ack: consumed once
      acked += insertAck.run(groupId, batchId, wellFormedText(consumer), at).changes;
    }
    return acked;
  });

  return {
    ackGroups: (batchId, groupIds, consumer, at) => ackGroups.immediate(batchId, groupIds, consumer, at),
    listServableGroups(query) {
      // an id holding U+0000 was never stored, and PostgreSQL's jsonb cannot read one
      const { limit, excludeIds, ...filters } = query;
      return selectServable
        .all({ ...groupFilterParameters(filters), limit, exclude: JSON.stringify((excludeIds ?? []).filter(isStorableId)) })
        .map((row) => row.id);
    },
    getBatchAck(batchId) {
      const records = selectAcks.all(batchId);
      if (records.length === 0) return null;
      const first = records[0] as AckRecord;
      return { batchId, groupIds: records.map((record) => record.group_id), consumer: first.consumer, ackedAt: first.acked_at };
    },
  };
}
