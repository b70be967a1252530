import { inJsonArray, prepareInsert, queuedAll, type SqlDatabase } from './sql/sql-database.js';
import { findRewardProblem } from './find-reward-problem.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { wellFormedText } from './well-formed-text.js';
import type { AddRewardInput, PolicyVersionRow, RewardRow } from './types.js';

interface RewardRecord {
  id: number;
  session_id: string;
  call_id: string | null;
  value: number;
  components: string | null;
  source: string;
  created_at: number;
}

export interface RewardQueries {
  add(input: AddRewardInput): RewardRow;
  list(sessionId: string, history: boolean): RewardRow[];
  /** the current rewards of several sessions (`ids`: a JSON array), by session; queued on PostgreSQL (queuedAll) */
  queueCurrentOf(ids: string): () => Map<string, RewardRow[]>;
  setPolicyVersion(version: string, setAt: number): PolicyVersionRow;
  getPolicyVersion(): PolicyVersionRow | null;
}

/**
 * Rewards (append-only: the newest row per session or call wins, older rows are its history) and policy versions
 * (append-only too: the newest row is the version calls are served under).
 *
 * @example
 * const rewards = createRewardQueries(database);
 * rewards.add({ sessionId: 'r-1', value: 1, source: 'library', createdAt: Date.now() });
 */
export function createRewardQueries(database: SqlDatabase): RewardQueries {
  const sessionExists = database.prepare<[string], { found: number }>(`SELECT 1 AS found FROM sessions WHERE id = ?`);
  const callSession = database.prepare<[string], { session_id: string }>(`SELECT session_id FROM calls WHERE id = ?`);
  const insert = prepareInsert<[Record<string, unknown>]>(
    database,
    `INSERT INTO rewards (session_id, call_id, value, components, source, created_at)
     VALUES (@sessionId, @callId, @value, @components, @source, @createdAt)`,
  );
  const selectOne = database.prepare<[number | bigint], RewardRecord>(`SELECT * FROM rewards WHERE id = ?`);
  const selectHistory = database.prepare<[string], RewardRecord>(`SELECT * FROM rewards WHERE session_id = ? ORDER BY id`);
  // the newest reward per target; the session's own (call_id null) first, then calls in call order
  const selectCurrent = database.prepare<[string, string], RewardRecord>(
    `SELECT rewards.* FROM rewards
       LEFT JOIN calls ON calls.id = rewards.call_id
      WHERE rewards.session_id = ?
        AND rewards.id = (SELECT max(latest.id) FROM rewards AS latest
                           WHERE latest.session_id = ? AND latest.call_id IS NOT DISTINCT FROM rewards.call_id)
      ORDER BY rewards.call_id IS NOT NULL, calls.seq`,
  );
  // the same per session, for several: grouped by session in the order above
  const selectCurrentOf = queuedAll(
    database.prepare<[string], RewardRecord>(
      `SELECT rewards.* FROM rewards
         LEFT JOIN calls ON calls.id = rewards.call_id
        WHERE ${inJsonArray(database, 'rewards.session_id', '?')}
          AND rewards.id = (SELECT max(latest.id) FROM rewards AS latest
                             WHERE latest.session_id = rewards.session_id AND latest.call_id IS NOT DISTINCT FROM rewards.call_id)
        ORDER BY rewards.session_id, rewards.call_id IS NOT NULL, calls.seq`,
    ),
  );
  const insertVersion = database.prepare<[string, number]>(`INSERT INTO policy_versions (version, set_at) VALUES (?, ?)`);
  const selectVersion = database.prepare<[], { version: string; set_at: number }>(
    `SELECT version, set_at FROM policy_versions ORDER BY id DESC LIMIT 1`,
  );

  const add = database.transaction((input: AddRewardInput): RewardRow => {
    // defence in depth: the rollout API checks the same rule first; a non-finite reward would break every export
    const problem = findRewardProblem(input);
    if (problem !== null) throw new TokentapError('STORE_INVALID_INPUT', { message: `reward ${problem.field} ${problem.problem}` });
    if (sessionExists.get(input.sessionId) === undefined)
      throw new TokentapError('STORE_SESSION_NOT_FOUND', { message: `no session with id ${input.sessionId}` });
    const callId = input.callId ?? null;
    if (callId !== null && callSession.get(callId)?.session_id !== input.sessionId) {
      throw new TokentapError('STORE_CALL_NOT_FOUND', { message: `session ${input.sessionId} has no call with id ${callId}` });
    }
    const id = insert({
      sessionId: input.sessionId,
      callId,
      value: input.value,
      components: input.components === undefined || input.components === null ? null : JSON.stringify(input.components),
      source: wellFormedText(input.source),
      createdAt: input.createdAt,
    });
    return toRewardRow(selectOne.get(id as number) as RewardRecord);
  });

  return {
    add: (input) => add.immediate(input),
    list: (sessionId, history) => (history ? selectHistory.all(sessionId) : selectCurrent.all(sessionId, sessionId)).map(toRewardRow),
    queueCurrentOf(ids) {
      const read = selectCurrentOf(ids);
      return () => {
        const bySession = new Map<string, RewardRow[]>();
        for (const record of read()) {
          const rows = bySession.get(record.session_id) ?? [];
          if (rows.length === 0) bySession.set(record.session_id, rows);
          rows.push(toRewardRow(record));
        }
        return bySession;
      };
    },
    setPolicyVersion(given, setAt) {
      const version = wellFormedText(given);
      insertVersion.run(version, setAt);
      return { version, setAt };
    },
    getPolicyVersion() {
      const row = selectVersion.get();
      return row === undefined ? null : { version: row.version, setAt: row.set_at };
    },
  };
}

function toRewardRow(record: RewardRecord): RewardRow {
  return {
    id: record.id,
    sessionId: record.session_id,
    callId: record.call_id,
    value: record.value,
    components: record.components === null ? null : (JSON.parse(record.components) as Record<string, number>),
    source: record.source,
    createdAt: record.created_at,
  };
}
