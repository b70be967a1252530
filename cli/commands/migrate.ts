import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LATEST_SCHEMA_VERSION, openStore } from '../../store/index.js';
import { UsageError } from '../usage-error.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const MIGRATE_HELP = `Usage: tokentap migrate [--db FILE | --config FILE]

Brings a database written by an older tokentap to this version's schema (migrations only add; nothing is
rewritten). \`serve\` does the same on start; reading commands (show, export, stats, ...) never migrate.
  --db FILE     database (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
`;

/** `tokentap migrate` */
export function runMigrate(args: string[], env: NodeJS.ProcessEnv): number {
  const { values } = parseArgs({ args, options: { ...STORE_PATH_OPTIONS, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(MIGRATE_HELP);
    return 0;
  }
  const db = resolveStorePath(values, env);
  if (!existsSync(db)) throw new UsageError(`no database at ${db} (give --db FILE)`);
  openStore({ path: db }).close();
  process.stdout.write(`${db}: schema version ${LATEST_SCHEMA_VERSION}\n`);
  return 0;
}
