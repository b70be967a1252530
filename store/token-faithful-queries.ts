import { dialectOf, type SqlDatabase } from './sql/sql-database.js';

export interface TokenFaithfulQueries {
  /** the session's newest calls ended `ok` with a token-faithful prompt, newest first, at most `limit` */
  listCallIds(sessionId: string, limit: number): string[];
}

/**
 * What a gateway rebuilds a session's token-faithful history from (gateway/token-faithful/restore-token-history.ts):
 * the calls whose token-id prompt was rendered from a chat request (`chat_request_body` is kept only for them) and
 * whose end committed as `ok`. A call in progress, failed or aborted is never listed, so no gateway extends a call
 * whose end it cannot see.
 *
 * @example
 * const queries = createTokenFaithfulQueries(database);
 * queries.listCallIds('run-1', 1); // ['9f2c…']: the call a gateway's memory must know to be current
 */
export function createTokenFaithfulQueries(database: SqlDatabase): TokenFaithfulQueries {
  // walks the (session_id, seq) index from the newest call down and stops after `limit` matches; the unary `+`
  // keeps the planner off calls_session_totals (session_id, status, …), which would read every ok call and sort
  const selectIds = database
    .prepare<[string, number], string>(
      `SELECT calls.id FROM calls JOIN call_bodies ON call_bodies.call_id = calls.id
        WHERE calls.session_id = ? AND ${dialectOf(database) === 'sqlite' ? '+calls.status' : 'calls.status'} = 'ok'
          AND call_bodies.chat_request_body IS NOT NULL
        ORDER BY calls.seq DESC LIMIT ?`,
    )
    .pluck(true);
  return {
    listCallIds: (sessionId, limit) => selectIds.all(sessionId, Math.max(0, Math.floor(limit))),
  };
}
