import { dialectOf, sqlFor, typed, type SqlDatabase, type SqlDialect } from './sql/sql-database.js';
import { assertStorableId } from './storable-id.js';
import type { CallStatus, SessionFilter, SessionListQuery, SessionOrigin, SessionRow, SessionStatus } from './types.js';

interface SessionRecord {
  id: string;
  created_at: number;
  metadata: string;
  status: SessionStatus;
  origin: SessionOrigin;
  group_id: string | null;
  reward: number | null;
  call_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  last_call_at: number | null;
  status_counts: string;
}

/** The session's current reward: its newest session-level row, one `rewards_by_target` index probe. */
const SESSION_REWARD = `(SELECT rewards.value FROM rewards
   WHERE rewards.session_id = sessions.id AND rewards.call_id IS NULL ORDER BY rewards.id DESC LIMIT 1)`;

/** Per-status call counts of the session as a JSON object text (`{}` when it has none). */
const STATUS_COUNTS: Record<SqlDialect, string> = {
  sqlite: `(SELECT json_group_object(status, count) FROM
     (SELECT status, count(*) AS count FROM calls WHERE session_id = sessions.id GROUP BY status))`,
  postgres: `(SELECT coalesce(json_object_agg(status, count)::text, '{}') FROM
     (SELECT status, count(*) AS count FROM calls WHERE session_id = sessions.id GROUP BY status) AS per_status)`,
};

/** Aggregates per session; `calls_session_totals` covers them, so no call row is read. */
const sessionColumns = (dialect: SqlDialect): string => `
  sessions.id, sessions.created_at, sessions.metadata, sessions.status, sessions.origin, sessions.group_id,
  ${SESSION_REWARD} AS reward,
  count(calls.session_id) AS call_count,
  coalesce(sum(calls.prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(calls.completion_tokens), 0) AS completion_tokens,
  max(calls.started_at) AS last_call_at,
  ${STATUS_COUNTS[dialect]} AS status_counts`;

/** Every column of the session read (PostgreSQL wants them all named once `sessions` is a subquery). */
const SESSION_GROUP = `sessions.id, sessions.created_at, sessions.activity_at, sessions.metadata, sessions.status, sessions.origin,
  sessions.group_id`;

/** Where a substring occurs in a text (1-based, 0 when nowhere): the same bytes compared on both engines, no wildcards. */
const POSITION_OF: Record<SqlDialect, (text: string, parameter: string) => string> = {
  sqlite: (text, parameter) => `instr(${text}, ${parameter})`,
  postgres: (text, parameter) => `strpos(${text}, ${parameter})`,
};

/** SessionFilter on the row `sessions`; each test is off while its parameter is null (typed: PostgreSQL cannot type a bare `$1 IS NULL`). */
const sessionMatches = (database: SqlDatabase): string => {
  const isNull = (parameter: string, type: string): string => `${typed(database, parameter, type)} IS NULL`;
  const positionOf = POSITION_OF[dialectOf(database)];
  return `(${isNull('@search', 'text')} OR ${positionOf('sessions.id', '@search')} > 0
        OR ${positionOf("coalesce(sessions.group_id, '')", '@search')} > 0)
  AND (${isNull('@groupId', 'text')} OR sessions.group_id = @groupId)
  AND (${isNull('@status', 'text')} OR sessions.status = @status)
  AND (${isNull('@since', 'double precision')} OR sessions.activity_at >= @since)
  AND (${isNull('@until', 'double precision')} OR sessions.activity_at < @until)
  AND (${isNull('@hasReward', 'boolean')} OR (${SESSION_REWARD} IS NOT NULL) = @hasReward)
  AND (${isNull('@minReward', 'double precision')} OR ${SESSION_REWARD} >= @minReward)
  AND (${isNull('@maxReward', 'double precision')} OR ${SESSION_REWARD} <= @maxReward)
  AND (${isNull('@frontDoor', 'text')} OR EXISTS (SELECT 1 FROM calls AS call WHERE call.session_id = sessions.id AND call.front_door = @frontDoor))
  AND (${isNull('@model', 'text')} OR EXISTS (SELECT 1 FROM calls AS call
        WHERE call.session_id = sessions.id AND (call.requested_model = @model OR call.backend_model = @model)))`;
};

/**
 * The value a page is ordered by, per key of SessionOrderKey (`id` aside: text, ordered by its own columns), as one
 * expression over the grouped row: bound as `@orderBy`, so one statement serves every order.
 */
const sortValue = (database: SqlDatabase): string => `CASE ${typed(database, '@orderBy', 'text')}
    WHEN 'createdAt' THEN CAST(sessions.created_at AS double precision)
    WHEN 'lastCallAt' THEN CAST(sessions.activity_at AS double precision)
    WHEN 'callCount' THEN CAST(count(calls.session_id) AS double precision)
    WHEN 'promptTokens' THEN CAST(coalesce(sum(calls.prompt_tokens), 0) AS double precision)
    WHEN 'completionTokens' THEN CAST(coalesce(sum(calls.completion_tokens), 0) AS double precision)
    WHEN 'reward' THEN CAST(${SESSION_REWARD} AS double precision)
  END`;

interface FilterParameters {
  search: string | null;
  groupId: string | null;
  status: string | null;
  since: number | null;
  until: number | null;
  hasReward: number | null;
  minReward: number | null;
  maxReward: number | null;
  frontDoor: string | null;
  model: string | null;
}

export interface SessionQueries {
  /** Inserts the session unless it exists; true when it was inserted. */
  ensure(sessionId: string, metadata: Record<string, unknown>, createdAt: number): boolean;
  /** Records a call start so listSessions orders sessions by their newest call. */
  touch(sessionId: string, at: number): void;
  get(sessionId: string): SessionRow | null;
  /** a page of the sessions the filter takes, most recently active first unless `orderBy`/`order` say otherwise */
  list(query: SessionListQuery, limit: number, offset: number): SessionRow[];
  count(filter: SessionFilter): number;
}

/**
 * Session rows and their aggregates.
 *
 * @example
 * const sessions = createSessionQueries(database);
 * sessions.list({}, 20, 0); // the 20 most recently active sessions
 * sessions.count({ groupId: 'task-7' }); // how many sessions group task-7 has
 */
export function createSessionQueries(database: SqlDatabase): SessionQueries {
  const dialect = dialectOf(database);
  const columns = sessionColumns(dialect);
  const matches = sessionMatches(database);
  const insert = database.prepare<[string, number, number, string]>(
    sqlFor(database, {
      sqlite: `INSERT OR IGNORE INTO sessions (id, created_at, activity_at, metadata) VALUES (?, ?, ?, ?)`,
      postgres: `INSERT INTO sessions (id, created_at, activity_at, metadata) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    }),
  );
  const touchStatement = database.prepare<[number, string]>(
    sqlFor(database, {
      sqlite: `UPDATE sessions SET activity_at = max(activity_at, ?) WHERE id = ?`,
      postgres: `UPDATE sessions SET activity_at = greatest(activity_at, ?) WHERE id = ?`,
    }),
  );
  const selectOne = database.prepare<[string], SessionRecord>(
    `SELECT ${columns}
       FROM sessions LEFT JOIN calls ON calls.session_id = sessions.id
      WHERE sessions.id = ?
      GROUP BY ${SESSION_GROUP}`,
  );
  const selectPage = database.prepare<FilterParameters & { limit: number; offset: number }, SessionRecord>(
    `SELECT ${columns}
       FROM (SELECT id, created_at, activity_at, metadata, status, origin, group_id FROM sessions
              WHERE ${matches}
              ORDER BY activity_at DESC, id LIMIT @limit OFFSET @offset) AS sessions
       LEFT JOIN calls ON calls.session_id = sessions.id
      GROUP BY ${SESSION_GROUP}
      ORDER BY sessions.activity_at DESC, sessions.id`,
  );
  // any other order: every matching session is aggregated, then ordered and paged (no index serves an aggregate);
  // sessions without a value (no reward) come last either way, ties by id
  const selectOrdered = database.prepare<FilterParameters & OrderParameters & { limit: number; offset: number }, SessionRecord>(
    `SELECT * FROM (SELECT ${columns}, ${sortValue(database)} AS sort_value
       FROM sessions LEFT JOIN calls ON calls.session_id = sessions.id
      WHERE ${matches}
      GROUP BY ${SESSION_GROUP}) AS listed
      ORDER BY (listed.sort_value IS NULL), listed.sort_value * ${typed(database, '@sign', 'double precision')},
        CASE WHEN ${typed(database, '@orderBy', 'text')} = 'id' AND @sign < 0 THEN listed.id END DESC, listed.id
      LIMIT @limit OFFSET @offset`,
  );
  const countMatching = database.prepare<FilterParameters, { count: number }>(`SELECT count(*) AS count FROM sessions WHERE ${matches}`);

  return {
    ensure: (sessionId, metadata, createdAt) => {
      assertStorableId(sessionId, 'session id');
      return insert.run(sessionId, createdAt, createdAt, JSON.stringify(metadata)).changes === 1;
    },
    touch: (sessionId, at) => {
      touchStatement.run(at, sessionId);
    },
    get: (sessionId) => {
      const record = selectOne.get(sessionId);
      return record === undefined ? null : toSessionRow(record);
    },
    list: ({ orderBy = 'lastCallAt', order = 'desc', ...filter }, limit, offset) => {
      if (orderBy === 'lastCallAt' && order === 'desc') return selectPage.all({ ...filterParameters(filter), limit, offset }).map(toSessionRow);
      const ordering = { orderBy, sign: order === 'desc' ? -1 : 1 };
      return selectOrdered.all({ ...filterParameters(filter), ...ordering, limit, offset }).map(toSessionRow);
    },
    count: (filter) => (countMatching.get(filterParameters(filter)) as { count: number }).count,
  };
}

interface OrderParameters {
  orderBy: string;
  /** 1 ascending, -1 descending */
  sign: number;
}

function filterParameters(filter: SessionFilter): FilterParameters {
  return {
    search: filter.search === undefined || filter.search === '' ? null : filter.search,
    groupId: filter.groupId ?? null,
    status: filter.status ?? null,
    since: filter.since ?? null,
    until: filter.until ?? null,
    // SQLite has no booleans: the comparison `(reward IS NOT NULL) = @hasReward` takes 1 or 0
    hasReward: filter.hasReward === undefined ? null : filter.hasReward ? 1 : 0,
    minReward: filter.minReward ?? null,
    maxReward: filter.maxReward ?? null,
    frontDoor: filter.frontDoor ?? null,
    model: filter.model ?? null,
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
    status: record.status,
    origin: record.origin,
    groupId: record.group_id,
    reward: record.reward,
  };
}
