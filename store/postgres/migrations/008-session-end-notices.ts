import type { Migration } from '../../migrations/migration.js';

/** The channel each ended session's id is announced on (a NOTIFY sent when its status leaves `open`, at commit). */
export const SESSION_END_CHANNEL = 'tokentap_session_ended';

/**
 * Schema 8: a trigger announces every change of a session's status on SESSION_END_CHANNEL, whoever made it (a gateway
 * of any host, an operator's UPDATE). PostgreSQL delivers a NOTIFY when its transaction commits, to every connection
 * listening then, so a gateway that listens (store/postgres/session-end-watch.ts) may keep the rollout rows its calls'
 * admission reads (gateway/rollouts/rollout-read-cache.ts) instead of reading one per call, a round trip each.
 */
export const postgresSessionEndNoticesMigration: Migration = {
  version: 8,
  name: 'session-end-notices',
  sql: `
CREATE FUNCTION tokentap_announce_session_end() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  PERFORM pg_notify('${SESSION_END_CHANNEL}', NEW.id);
  RETURN NULL;
END
$body$;
CREATE TRIGGER sessions_announce_end AFTER UPDATE OF status ON sessions
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION tokentap_announce_session_end();
`,
};
