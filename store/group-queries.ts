import { ignoreConflicts, sqlFor, type SqlDatabase } from './sql/sql-database.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { assertStorableId } from './storable-id.js';
import type { DeclareGroupInput, GroupRow, SessionStatus } from './types.js';

interface GroupRecord {
  id: string;
  expected_size: number | null;
  metadata: string;
  created_at: number;
  completed_at: number | null;
}

export interface GroupQueries {
  /** inserts a group row with no declared size unless it exists (a session named it first) */
  ensure(groupId: string, createdAt: number): void;
  declare(input: DeclareGroupInput): { group: GroupRow; completed: boolean };
  get(groupId: string): GroupRow | null;
  /** sets `completed_at` when enough of the group's sessions have ended; true only the first time */
  completeIfDone(groupId: string, at: number): boolean;
}

/**
 * GRPO groups: a declared size, the sessions naming the group, and the moment the last awaited one ended.
 *
 * @example
 * const groups = createGroupQueries(database);
 * groups.declare({ groupId: 'task-7', expectedSize: 8, createdAt: Date.now() });
 */
export function createGroupQueries(database: SqlDatabase): GroupQueries {
  const insert = database.prepare<[string, number | null, string, number]>(
    ignoreConflicts(database, `INSERT OR IGNORE INTO groups (id, expected_size, metadata, created_at) VALUES (?, ?, ?, ?)`),
  );
  const selectOne = database.prepare<[string], GroupRecord>(`SELECT * FROM groups WHERE id = ?`);
  // PostgreSQL: two gateways ending a group's last two sessions at once must not both count one short; the row lock
  // orders them (SQLite's IMMEDIATE transactions already run one at a time)
  const selectLocked = database.prepare<[string], GroupRecord>(
    sqlFor(database, { sqlite: `SELECT * FROM groups WHERE id = ?`, postgres: `SELECT * FROM groups WHERE id = ? FOR UPDATE` }),
  );
  // creation order: two sessions made in one millisecond keep the order they were made in, not their ids' (PostgreSQL
  // has no rowid: its sessions carry `position`, an identity column)
  const selectSessions = database.prepare<[string], { id: string; status: SessionStatus }>(
    sqlFor(database, {
      sqlite: `SELECT id, status FROM sessions WHERE group_id = ? ORDER BY created_at, rowid`,
      postgres: `SELECT id, status FROM sessions WHERE group_id = ? ORDER BY created_at, position`,
    }),
  );
  const updateDeclared = database.prepare<[number, string, string]>(`UPDATE groups SET expected_size = ?, metadata = ? WHERE id = ?`);
  const countEnded = database.prepare<[string], { ended: number }>(`SELECT count(*) AS ended FROM sessions WHERE group_id = ? AND status <> 'open'`);
  const markComplete = database.prepare<[number, string]>(`UPDATE groups SET completed_at = ? WHERE id = ? AND completed_at IS NULL`);

  const get = (groupId: string): GroupRow | null => {
    const record = selectOne.get(groupId);
    return record === undefined ? null : toGroupRow(record, selectSessions.all(groupId));
  };

  const completeIfDone = (groupId: string, at: number): boolean => {
    const record = selectLocked.get(groupId);
    if (record === undefined || record.expected_size === null || record.completed_at !== null) return false;
    if ((countEnded.get(groupId) as { ended: number }).ended < record.expected_size) return false;
    return markComplete.run(at, groupId).changes === 1;
  };

  const declare = database.transaction((input: DeclareGroupInput) => {
    assertStorableId(input.groupId, 'group id');
    const metadata = JSON.stringify(input.metadata ?? {});
    insert.run(input.groupId, input.expectedSize, metadata, input.createdAt);
    const existing = selectOne.get(input.groupId) as GroupRecord;
    if (existing.expected_size !== null && existing.expected_size !== input.expectedSize) {
      throw new TokentapError('STORE_GROUP_CONFLICT', {
        message: `group ${input.groupId} was declared with ${existing.expected_size} sessions, not ${input.expectedSize}`,
      });
    }
    // a group a session named first has no size yet: declaring it sets one (declaring again with the same size is a no-op)
    if (existing.expected_size === null) updateDeclared.run(input.expectedSize, metadata, input.groupId);
    const completed = completeIfDone(input.groupId, input.createdAt);
    return { group: get(input.groupId) as GroupRow, completed };
  });

  return {
    ensure: (groupId, createdAt) => {
      insert.run(groupId, null, '{}', createdAt);
    },
    declare: (input) => declare.immediate(input),
    get,
    completeIfDone,
  };
}

function toGroupRow(record: GroupRecord, sessions: Array<{ id: string; status: SessionStatus }>): GroupRow {
  return {
    id: record.id,
    expectedSize: record.expected_size,
    metadata: JSON.parse(record.metadata) as Record<string, unknown>,
    createdAt: record.created_at,
    completedAt: record.completed_at,
    sessions,
  };
}
