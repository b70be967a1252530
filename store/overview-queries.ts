import { inJsonArray, type SqlDatabase } from './sql/sql-database.js';
import type { CallStatus, GroupSummaryRow, SessionCallKinds, StoreChangeMark } from './types.js';

/** The session's current reward (as session-queries.ts reads it): its newest session-level row. */
const SESSION_REWARD = `(SELECT rewards.value FROM rewards
   WHERE rewards.session_id = sessions.id AND rewards.call_id IS NULL ORDER BY rewards.id DESC LIMIT 1)`;

export interface OverviewQueries {
  callStatusCounts(): Partial<Record<CallStatus, number>>;
  countGroups(): number;
  readChangeMark(): StoreChangeMark;
  listGroupSummaries(): GroupSummaryRow[];
  sessionCallKinds(sessionIds: readonly string[]): Map<string, SessionCallKinds>;
}

/**
 * Counts over the whole store and per page of sessions, for the trajectory viewer (docs/viewer.md): read-only, each
 * one statement.
 *
 * @example createOverviewQueries(database).callStatusCounts() // { ok: 41, in_progress: 1 }
 */
export function createOverviewQueries(database: SqlDatabase): OverviewQueries {
  const selectStatusCounts = database.prepare<[], { status: CallStatus; count: number }>(
    `SELECT status, count(*) AS count FROM calls GROUP BY status ORDER BY status`,
  );
  const selectGroupCount = database.prepare<[], { count: number }>(
    `SELECT count(DISTINCT group_id) AS count FROM sessions WHERE group_id IS NOT NULL`,
  );
  // what a viewer polls each second to learn whether anything changed: the first three parts are read through an index
  // (sessions_by_activity, calls_in_progress, the rewards' key) whatever the store's size; the open sessions are
  // counted over the sessions (one row a session, not a call)
  const selectChangeMark = database.prepare<[], { activity_at: number | null; in_progress: number; reward_id: number | null; open_sessions: number }>(
    `SELECT (SELECT max(activity_at) FROM sessions) AS activity_at,
            (SELECT count(*) FROM calls WHERE status = 'in_progress') AS in_progress,
            (SELECT max(id) FROM rewards) AS reward_id,
            (SELECT count(*) FROM sessions WHERE status = 'open') AS open_sessions`,
  );
  const selectGroups = database.prepare<
    [],
    { group_id: string; sessions: number; rewarded: number; reward_mean: number | null; last_call_at: number | null }
  >(
    `SELECT member.group_id, count(*) AS sessions, count(member.reward) AS rewarded, avg(member.reward) AS reward_mean,
            max(member.last_call_at) AS last_call_at
       FROM (SELECT sessions.group_id, sessions.activity_at, ${SESSION_REWARD} AS reward,
                    (SELECT max(calls.started_at) FROM calls WHERE calls.session_id = sessions.id) AS last_call_at
               FROM sessions WHERE sessions.group_id IS NOT NULL) AS member
      GROUP BY member.group_id
      ORDER BY max(member.activity_at) DESC, member.group_id`,
  );
  const selectCallKinds = database.prepare<
    [string],
    { session_id: string; front_door: string; requested_model: string | null; backend_model: string | null }
  >(
    `SELECT DISTINCT calls.session_id, calls.front_door, calls.requested_model, calls.backend_model FROM calls
      WHERE ${inJsonArray(database, 'calls.session_id', '?')}
      ORDER BY calls.session_id, calls.front_door, calls.requested_model, calls.backend_model`,
  );
  return {
    callStatusCounts: () => Object.fromEntries(selectStatusCounts.all().map((row) => [row.status, row.count])),
    countGroups: () => (selectGroupCount.get() as { count: number }).count,
    readChangeMark() {
      const row = selectChangeMark.get() as { activity_at: number | null; in_progress: number; reward_id: number | null; open_sessions: number };
      return {
        newestActivityAt: row.activity_at,
        callsInProgress: Number(row.in_progress),
        newestRewardId: row.reward_id === null ? null : Number(row.reward_id),
        openSessions: Number(row.open_sessions),
      };
    },
    listGroupSummaries: () =>
      selectGroups.all().map((row) => ({
        groupId: row.group_id,
        sessions: row.sessions,
        rewarded: row.rewarded,
        rewardMean: row.reward_mean,
        lastCallAt: row.last_call_at,
      })),
    sessionCallKinds(sessionIds) {
      const kinds = new Map<string, { frontDoors: Set<string>; models: Set<string> }>(
        sessionIds.map((id) => [id, { frontDoors: new Set(), models: new Set() }]),
      );
      if (sessionIds.length > 0) {
        for (const row of selectCallKinds.all(JSON.stringify(sessionIds))) {
          const kind = kinds.get(row.session_id);
          if (kind === undefined) continue;
          kind.frontDoors.add(row.front_door);
          for (const model of [row.requested_model, row.backend_model]) if (model !== null) kind.models.add(model);
        }
      }
      return new Map([...kinds].map(([id, kind]) => [id, { frontDoors: [...kind.frontDoors].sort(), models: [...kind.models].sort() }]));
    },
  };
}
