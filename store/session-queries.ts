import type Database from 'better-sqlite3';
import type { CallStatus, SessionRow } from './types.js';

interface SessionRecord {
  id: string;
  created_at: number;
  metadata: string;
  call_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  last_call_at: number | null;
  status_counts: string;
}

/** Aggregates per session; `calls_session_totals` covers them, so no call row is read. */
const SESSION_COLUMNS = `
  sessions.id, sessions.created_at, sessions.metadata,
  count(calls.session_id) AS call_count,
  coalesce(sum(calls.prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(calls.completion_tokens), 0) AS completion_tokens,
  max(calls.started_at) AS last_call_at,
  (SELECT json_group_object(status, count) FROM
     (SELECT status, count(*) AS count FROM calls WHERE session_id = sessions.id GROUP BY status)) AS status_counts`;

export interface SessionQueries {
  /** Inserts the session unless it exists; true when it was inserted. */
  ensure(sessionId: string, metadata: Record<string, unknown>, createdAt: number): boolean;
  /** Records a call start so listSessions orders sessions by their newest call. */
  touch(sessionId: string, at: number): void;
  get(sessionId: string): SessionRow | null;
  list(limit: number, offset: number): SessionRow[];
}

/**
 * Session rows and their aggregates.
 *
 * @example
 * const sessions = createSessionQueries(database);
 * sessions.list(20, 0); // the 20 most recently active sessions
 */
export function createSessionQueries(database: Database.Database): SessionQueries {
  const insert = database.prepare<[string, number, number, string]>(
    `INSERT OR IGNORE INTO sessions (id, created_at, activity_at, metadata) VALUES (?, ?, ?, ?)`,
  );
  const touchStatement = database.prepare<[number, string]>(
    `UPDATE sessions SET activity_at = max(activity_at, ?) WHERE id = ?`,
  );
  const selectOne = database.prepare<[string], SessionRecord>(
    `SELECT ${SESSION_COLUMNS}
       FROM sessions LEFT JOIN calls ON calls.session_id = sessions.id
      WHERE sessions.id = ?
      GROUP BY sessions.id`,
  );
  const selectPage = database.prepare<[number, number], SessionRecord>(
    `SELECT ${SESSION_COLUMNS}
       FROM (SELECT id, created_at, activity_at, metadata FROM sessions
              ORDER BY activity_at DESC, id LIMIT ? OFFSET ?) AS sessions
       LEFT JOIN calls ON calls.session_id = sessions.id
      GROUP BY sessions.id
      ORDER BY sessions.activity_at DESC, sessions.id`,
  );

  return {
    ensure: (sessionId, metadata, createdAt) =>
      insert.run(sessionId, createdAt, createdAt, JSON.stringify(metadata)).changes === 1,
    touch: (sessionId, at) => {
      touchStatement.run(at, sessionId);
    },
    get: (sessionId) => {
      const record = selectOne.get(sessionId);
      return record === undefined ? null : toSessionRow(record);
    },
    list: (limit, offset) => selectPage.all(limit, offset).map(toSessionRow),
  };
}

function toSessionRow(record: SessionRecord): SessionRow {
  return {
    id: record.id,
    createdAt: record.created_at,
    metadata: JSON.parse(record.metadata) as Record<string, unknown>,
    callCount: record.call_count,
    promptTokens: record.prompt_tokens,
    completionTokens: record.completion_tokens,
    statusCounts: JSON.parse(record.status_counts) as Partial<Record<CallStatus, number>>,
    lastCallAt: record.last_call_at,
  };
}
