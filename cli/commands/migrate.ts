import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LATEST_SCHEMA_VERSION, openStore } from '../../store/index.js';
import { UsageError } from '../usage-error.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const MIGRATE_HELP = `Usage: tokentap migrate [--db FILE | --config FILE]
       tokentap migrate --from SQLITE_FILE --to POSTGRES_URL

Brings a database written by an older tokentap to this version's schema (migrations only add; nothing is
rewritten). \`serve\` does the same on start; reading commands (show, export, stats, ...) never migrate.
  --db FILE     database (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read

With --from and --to, copies a SQLite store into PostgreSQL exactly, then verifies the copy: a digest of every
call's ids (prompt, completion, logprobs, status), session and group read back from both, and every table's row
count. A progress bar on a terminal; the digest on stdout.
  --from FILE   the SQLite store (migrated first when older). Refused while a gateway runs on it: stop it first
  --to URL      postgres://USER:PASSWORD@HOST/DATABASE: an empty database (its tables are created), or one this
                same copy was interrupted in: the copy resumes after its last committed page, no row twice. A
                database holding anything else, or a finished copy, is refused. The password is never printed
Ctrl-C stops after the page being written (exit 130); run the same command again to resume.
Exit codes: 0 copied and verified, 1 the copy does not match its source or failed, 2 a mistake (missing file, bad
URL, unreachable server, a database holding other data), nothing copied.
`;

/** `tokentap migrate`: the schema of one SQLite file, or (--from, --to) a copy of a SQLite store into PostgreSQL. */
export function runMigrate(args: string[], env: NodeJS.ProcessEnv): number | Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...STORE_PATH_OPTIONS, from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(MIGRATE_HELP);
    return 0;
  }
  if (values.from !== undefined || values.to !== undefined) {
    if (values.from === undefined || values.to === undefined) throw new UsageError('a copy takes both --from SQLITE_FILE and --to POSTGRES_URL');
    if (values.db !== undefined || values.config !== undefined) throw new UsageError('--db and --config do not go with --from/--to');
    const { from, to } = values;
    return import('./migrate-copy.js').then(({ runMigrateCopy }) => runMigrateCopy(from, to));
  }
  const db = resolveStorePath(values, env);
  if (!existsSync(db)) throw new UsageError(`no database at ${db} (give --db FILE)`);
  openStore({ path: db }).close();
  process.stdout.write(`${db}: schema version ${LATEST_SCHEMA_VERSION}\n`);
  return 0;
}
