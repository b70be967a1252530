import { z } from 'zod';
import { gatewayConfigSchema } from '../gateway/config/gateway-config.js';
import { readConfigFile } from './load-config.js';
import { UsageError } from './usage-error.js';

/** The parseArgs options every command that opens a database takes (`serve` reads them among all its config keys). */
export const STORE_PATH_OPTIONS = { db: { type: 'string' }, config: { type: 'string' } } as const;

/**
 * The database a command opens, by the config rule of every command (STYLE.md section 4): `--db` > `TOKENTAP_DB`
 * (empty counts as unset) > the `db` key of the config file (`--config`, else `TOKENTAP_CONFIG`) > `./tokentap.db`,
 * the same vocabulary and default as `tokentap serve`. A config file that cannot be read or is no JSON object, or a
 * `db` that is no path, is a UsageError (exit code 2).
 *
 * @example const db = resolveStorePath(values, env); // values from parseArgs with STORE_PATH_OPTIONS
 */
export function resolveStorePath(flags: { db?: string | undefined; config?: string | undefined }, env: NodeJS.ProcessEnv): string {
  if (flags.db !== undefined) return checkedPath(flags.db, '--db');
  if (env.TOKENTAP_DB !== undefined && env.TOKENTAP_DB !== '') return env.TOKENTAP_DB;
  const configPath = flags.config ?? env.TOKENTAP_CONFIG;
  if (configPath !== undefined) {
    const fromFile = readConfigFile(configPath).db;
    if (fromFile !== undefined) return checkedPath(fromFile, `"db" in ${configPath}`);
  }
  return gatewayConfigSchema.shape.db.parse(undefined);
}

function checkedPath(value: unknown, where: string): string {
  const parsed = gatewayConfigSchema.shape.db.safeParse(value);
  if (!parsed.success) throw new UsageError(`invalid ${where}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`);
  return parsed.data;
}
