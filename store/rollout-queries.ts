import { ignoreConflicts, inJsonArray, type SqlDatabase } from './sql/sql-database.js';
import type { GroupQueries } from './group-queries.js';
import { assertStorableId, isStorableId } from './storable-id.js';
import { wellFormedText } from './well-formed-text.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import type { CreateRolloutInput, EndSessionInput, GroupRow, RolloutRow, SessionEndReason, SessionOrigin, SessionStatus } from './types.js';

interface RolloutRecord {
  id: string;
  origin: SessionOrigin;
  status: SessionStatus;
  group_id: string | null;
  task: string | null;
  tags: string | null;
  split: RolloutRow['split'];
  sampling: string | null;
  /** 1 or 0 from SQLite, a boolean from PostgreSQL */
  has_key: number | boolean;
  created_at: number;
  activity_at: number;
  ended_at: number | null;
  end_reason: SessionEndReason | null;
}

export interface RolloutQueries {
  create(input: CreateRolloutInput): RolloutRow;
  get(sessionId: string): RolloutRow | null;
  getMany(sessionIds: readonly string[]): RolloutRow[];
  findByKeyHash(keyHash: Uint8Array): string | null;
  end(sessionId: string, input: EndSessionInput): { rollout: RolloutRow; completedGroup: GroupRow | null };
  listIdle(before: number): string[];
}

/**
 * The rollout side of sessions: their fields, keys (hashes) and lifecycle. Sessions made implicitly by a call's
 * base URL have the same row, with origin `implicit`.
 *
 * @example
 * const rollouts = createRolloutQueries(database, groups);
 * rollouts.create({ sessionId: 'r-1', groupId: 'task-7', keyHash, createdAt: Date.now() });
 */
export function createRolloutQueries(database: SqlDatabase, groups: GroupQueries): RolloutQueries {
  const insertSession = database.prepare(
    ignoreConflicts(
      database,
      `INSERT OR IGNORE INTO sessions (id, created_at, activity_at, metadata, origin, group_id, task, tags, split, sampling)
       VALUES (@id, @createdAt, @createdAt, '{}', 'api', @groupId, @task, @tags, @split, @sampling)`,
    ),
  );
  const insertKey = database.prepare<[Buffer, string, number]>(`INSERT INTO session_keys (key_hash, session_id, created_at) VALUES (?, ?, ?)`);
  const selectOne = database.prepare<[string], RolloutRecord>(
    `SELECT id, origin, status, group_id, task, tags, split, sampling, created_at, activity_at, ended_at, end_reason,
            EXISTS (SELECT 1 FROM session_keys WHERE session_keys.session_id = sessions.id) AS has_key
       FROM sessions WHERE id = ?`,
  );
  const selectMany = database.prepare<[string], RolloutRecord>(
    `SELECT id, origin, status, group_id, task, tags, split, sampling, created_at, activity_at, ended_at, end_reason,
            EXISTS (SELECT 1 FROM session_keys WHERE session_keys.session_id = sessions.id) AS has_key
       FROM sessions WHERE ${inJsonArray(database, 'id', '?')}`,
  );
  const selectByKey = database.prepare<[Buffer], { session_id: string }>(`SELECT session_id FROM session_keys WHERE key_hash = ?`);
  const updateEnd = database.prepare<[SessionStatus, number, SessionEndReason, string]>(
    `UPDATE sessions SET status = ?, ended_at = ?, end_reason = ? WHERE id = ? AND status = 'open'`,
  );
  const selectIdle = database.prepare<[number], { id: string }>(
    `SELECT id FROM sessions WHERE origin = 'api' AND status = 'open' AND activity_at < ?`,
  );

  const get = (sessionId: string): RolloutRow | null => {
    const record = selectOne.get(sessionId);
    return record === undefined ? null : toRolloutRow(record);
  };

  const create = database.transaction((input: CreateRolloutInput): RolloutRow => {
    assertStorableId(input.sessionId, 'session id');
    if (input.groupId !== undefined && input.groupId !== null) assertStorableId(input.groupId, 'group id');
    if (input.groupId !== undefined && input.groupId !== null) groups.ensure(input.groupId, input.createdAt);
    const inserted = insertSession.run({
      id: input.sessionId,
      createdAt: input.createdAt,
      groupId: input.groupId ?? null,
      task: input.task === undefined ? null : JSON.stringify(input.task),
      // tags are matched in SQL as JSON, which PostgreSQL's jsonb cannot read with a U+0000 in it (well-formed-text.ts)
      tags: JSON.stringify((input.tags ?? []).map(wellFormedText)),
      split: input.split ?? null,
      sampling: JSON.stringify(input.sampling ?? {}),
    });
    if (inserted.changes === 0) throw new TokentapError('STORE_SESSION_EXISTS', { message: `a session with id ${input.sessionId} already exists` });
    if (input.keyHash !== undefined && input.keyHash !== null) insertKey.run(asBuffer(input.keyHash), input.sessionId, input.createdAt);
    return get(input.sessionId) as RolloutRow;
  });

  const end = database.transaction((sessionId: string, input: EndSessionInput) => {
    if (updateEnd.run(input.status, input.endedAt, input.reason, sessionId).changes === 0) {
      const existing = get(sessionId);
      if (existing === null) throw new TokentapError('STORE_SESSION_NOT_FOUND', { message: `no session with id ${sessionId}` });
      throw new TokentapError('STORE_SESSION_ENDED', { message: `session ${sessionId} already ended (${existing.status})` });
    }
    const rollout = get(sessionId) as RolloutRow;
    const completed = rollout.groupId !== null && groups.completeIfDone(rollout.groupId, input.endedAt);
    return { rollout, completedGroup: completed ? groups.get(rollout.groupId as string) : null };
  });

  return {
    create: (input) => create.immediate(input),
    get,
    getMany(sessionIds) {
      const ids = sessionIds.filter(isStorableId);
      if (ids.length === 0) return [];
      const found = new Map(selectMany.all(JSON.stringify(ids)).map((record) => [record.id, toRolloutRow(record)]));
      return sessionIds.flatMap((sessionId) => found.get(sessionId) ?? []);
    },
    findByKeyHash: (keyHash) => selectByKey.get(asBuffer(keyHash))?.session_id ?? null,
    end: (sessionId, input) => end.immediate(sessionId, input),
    listIdle: (before) => selectIdle.all(before).map((row) => row.id),
  };
}

/** better-sqlite3 binds Buffers as BLOBs, not every Uint8Array. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function toRolloutRow(record: RolloutRecord): RolloutRow {
  return {
    id: record.id,
    origin: record.origin,
    status: record.status,
    groupId: record.group_id,
    task: record.task === null ? null : (JSON.parse(record.task) as unknown),
    tags: record.tags === null ? [] : (JSON.parse(record.tags) as string[]),
    split: record.split,
    sampling: record.sampling === null ? {} : (JSON.parse(record.sampling) as Record<string, unknown>),
    hasKey: record.has_key === 1 || record.has_key === true,
    createdAt: record.created_at,
    activityAt: record.activity_at,
    endedAt: record.ended_at,
    endReason: record.end_reason,
  };
}
