import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { openStore } from '../../store/index.js';
import { formatTable } from '../format-table.js';
import { UsageError } from '../usage-error.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const SESSIONS_HELP = `Usage: tokentap sessions [--db FILE | --config FILE] [--limit N] [--json]

Lists recorded sessions, newest first: calls, tokens and call status counts.
  --db FILE     database (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE JSON config file, as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --limit N     at most N sessions (default 100)
  --json        one JSON object per line instead of a table
`;

/**
 * Opens a database for reading, refusing a path that does not exist (rather than creating an empty one) and one
 * written by an older tokentap (reading never migrates: `tokentap migrate` does, as `serve` does on start).
 */
export function openStoreForReading(db: string): ReturnType<typeof openStore> {
  if (!existsSync(db)) throw new UsageError(`no database at ${db} (give --db FILE)`);
  try {
    return openStore({ path: db, readonly: true });
  } catch (error) {
    if (isTokentapError(error, 'STORE_SCHEMA_OUTDATED')) {
      throw new UsageError(`${error.message}: run \`tokentap migrate --db ${db}\` (or start \`tokentap serve\` on it) first`);
    }
    throw error;
  }
}

function formatStatusCounts(counts: Record<string, number | undefined>): string {
  return Object.entries(counts).filter(([, count]) => (count ?? 0) > 0).map(([status, count]) => `${status}:${count}`).join(' ');
}

/** `tokentap sessions` */
export function runSessions(args: string[], env: NodeJS.ProcessEnv): number {
  const { values } = parseArgs({ args, options: { ...STORE_PATH_OPTIONS, limit: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(SESSIONS_HELP);
    return 0;
  }
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError('--limit must be a positive integer');
  const store = openStoreForReading(resolveStorePath(values, env));
  try {
    const sessions = store.listSessions({ limit });
    if (values.json) {
      for (const session of sessions) process.stdout.write(JSON.stringify(session) + '\n');
      return 0;
    }
    const rows = sessions.map((session) => [
      session.id,
      session.callCount,
      session.promptTokens,
      session.completionTokens,
      formatStatusCounts(session.statusCounts),
      session.lastCallAt === null ? null : new Date(session.lastCallAt).toISOString(),
    ]);
    process.stdout.write(formatTable(['session', 'calls', 'prompt_tokens', 'completion_tokens', 'status', 'last_call'], rows));
    return 0;
  } finally {
    store.close();
  }
}
