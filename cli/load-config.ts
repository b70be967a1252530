import { readFileSync } from 'node:fs';
import { isRecord } from '../core/json/is-record.js';
// the config schema is what cli/ takes past gateway/index.ts (here and in resolve-store-path.ts): every command reads
// its config, and the gateway's surface loads fastify, undici, prom-client and the recorder (about 0.5 s of CPU) that
// `tokentap show` never uses
import { gatewayConfigSchema, type GatewayConfig } from '../gateway/config/gateway-config.js';
import { UsageError } from './usage-error.js';
import { formatConfigIssues, type SettingSource } from './format-config-issues.js';

/** `backendUrl` -> `backend-url` */
export function toFlagName(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** `backendUrl` -> `TOKENTAP_BACKEND_URL` */
export function toEnvName(key: string): string {
  return `TOKENTAP_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;
}

export const CONFIG_KEYS = Object.keys(gatewayConfigSchema.shape) as Array<keyof GatewayConfig>;

/**
 * The keys of a JSON config file (`--config` / `TOKENTAP_CONFIG`); a file that cannot be read or is no JSON object is
 * a UsageError (exit code 2), in one line.
 *
 * @example readConfigFile('tokentap.json'); // { backendUrl: 'http://gpu-1:8000', db: '/data/tokentap.db' }
 */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!isRecord(parsed)) throw new Error('not a JSON object');
    return parsed;
  } catch (error) {
    throw new UsageError(`config file ${path} is not a JSON object: ${(error as Error).message}`);
  }
}

/**
 * Merges the gateway config: CLI flags > env (`TOKENTAP_*`) > config file (`--config`, JSON) > defaults.
 * This is the one place that reads `process.env`; bad config throws a UsageError (exit code 2).
 *
 * @example const config = loadConfig(flags, process.env)
 */
export function loadConfig(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): GatewayConfig {
  const configPath = flags.config ?? env.TOKENTAP_CONFIG;
  const merged: Record<string, unknown> = configPath === undefined ? {} : readConfigFile(configPath);
  const sources = new Map<string, SettingSource>();
  for (const key of CONFIG_KEYS) {
    const fromEnv = env[toEnvName(key)];
    if (fromEnv !== undefined && fromEnv !== '') {
      merged[key] = fromEnv;
      sources.set(key, { name: toEnvName(key), label: `${toEnvName(key)}${shown(key, fromEnv)} (environment)` });
    }
    const fromFlag = flags[toFlagName(key)];
    if (fromFlag !== undefined) {
      merged[key] = fromFlag;
      sources.set(key, { name: `--${toFlagName(key)}`, label: `--${toFlagName(key)}${shown(key, fromFlag, ' ')}` });
    }
  }
  const parsed = gatewayConfigSchema.safeParse(merged);
  if (!parsed.success) {
    // each bad value named where the user set it: a flag, an environment variable or a key of the config file
    const fromFile = (key: string): SettingSource => ({
      name: JSON.stringify(key),
      label: `${JSON.stringify(key)} in ${configPath ?? 'the config file'}`,
    });
    const sourceOf = (key: string): SettingSource => sources.get(key) ?? fromFile(key);
    throw new UsageError(
      `invalid configuration: ${formatConfigIssues(parsed.error, { keys: CONFIG_KEYS, sourceOf, unknownKeysWhere: ` in ${configPath ?? 'the config file'}` })}`,
    );
  }
  return parsed.data;
}

/** Secrets are named, never echoed: an error line may end up in a log or a CI transcript. */
const SECRET_KEYS: ReadonlySet<string> = new Set(['backendKey', 'adminToken']);

function shown(key: string, value: string, separator = '='): string {
  return SECRET_KEYS.has(key) ? '' : `${separator}${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)}`;
}
