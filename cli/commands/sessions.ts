import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { isPostgresUrl, openStore, redactPostgresUrl } from '../../store/index.js';
import { formatTable } from '../format-table.js';
import { UsageError } from '../usage-error.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';
import { parseSessionFilter, SESSION_FILTER_HELP, SESSION_FILTER_OPTIONS } from './session-filter-flags.js';

/** Sessions listed when no --limit is given. */
export const DEFAULT_SESSIONS_LIMIT = 100;

export const SESSIONS_HELP = `Usage: tokentap sessions [--db FILE | --config FILE] [filters] [--limit N] [--json]

Lists recorded sessions, most recently active first: calls, tokens, call status counts, the rollout's
status, group and current reward, and the last call's time. When more sessions match than are listed,
says how many more.
  --db FILE|URL       SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE       config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
${SESSION_FILTER_HELP}  --limit N           at most N sessions (default ${DEFAULT_SESSIONS_LIMIT})
  --json              one JSON object per line instead of a table (the "more" note goes to stderr)
`;

/**
 * Opens a database for reading, refusing a path that does not exist (rather than creating an empty one) and one
 * written by an older tokentap (reading never migrates: `tokentap migrate` does, as `serve` does on start).
 */
export function openStoreForReading(db: string): ReturnType<typeof openStore> {
  if (!isPostgresUrl(db) && !existsSync(db)) throw new UsageError(`no database at ${db} (give --db FILE)`);
  try {
    return openStore({ path: db, readonly: true });
  } catch (error) {
    if (isTokentapError(error, 'STORE_SCHEMA_OUTDATED')) {
      throw new UsageError(`${error.message}: run \`tokentap migrate --db ${redactPostgresUrl(db)}\` (or start \`tokentap serve\` on it) first`);
    }
    throw error;
  }
}

function formatStatusCounts(counts: Record<string, number | undefined>): string {
  return Object.entries(counts)
    .filter(([, count]) => (count ?? 0) > 0)
    .map(([status, count]) => `${status}:${count}`)
    .join(' ');
}

/** `tokentap sessions` */
export function runSessions(args: string[], env: NodeJS.ProcessEnv): number {
  const options = {
    ...STORE_PATH_OPTIONS,
    ...SESSION_FILTER_OPTIONS,
    limit: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values } = parseArgs({ args, options });
  if (values.help) {
    process.stdout.write(SESSIONS_HELP);
    return 0;
  }
  const limit = values.limit === undefined ? DEFAULT_SESSIONS_LIMIT : Number(values.limit);
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError('--limit must be a positive integer');
  const filter = parseSessionFilter(values);
  const store = openStoreForReading(resolveStorePath(values, env));
  try {
    const sessions = store.listSessions({ ...filter, limit });
    // never stop silently at the limit: say how many matching sessions were not listed
    const more = sessions.length < limit ? 0 : store.countSessions(filter) - sessions.length;
    const moreNote = `${more} more session${more === 1 ? '' : 's'} (use --limit or a filter)\n`;
    if (values.json) {
      for (const session of sessions) process.stdout.write(JSON.stringify(session) + '\n');
      if (more > 0) process.stderr.write(moreNote);
      return 0;
    }
    const rows = sessions.map((session) => [
      session.id,
      session.callCount,
      session.promptTokens,
      session.completionTokens,
      formatStatusCounts(session.statusCounts),
      session.status,
      session.groupId,
      session.reward,
      session.lastCallAt === null ? null : new Date(session.lastCallAt).toISOString(),
    ]);
    const headers = ['session', 'calls', 'prompt_tokens', 'completion_tokens', 'call_status', 'rollout', 'group', 'reward', 'last_call'];
    process.stdout.write(formatTable(headers, rows));
    if (more > 0) process.stdout.write(moreNote);
    return 0;
  } finally {
    store.close();
  }
}
