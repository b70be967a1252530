import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isRecord } from '../core/json/is-record.js';
// the config schema is what cli/ takes past gateway/index.ts (here and in resolve-store-path.ts): every command reads
// its config, and the gateway's surface loads fastify, undici, prom-client and the recorder (about 0.5 s of CPU) that
// `tokentap show` never uses
import { gatewayConfigSchema, type GatewayConfig } from '../gateway/config/gateway-config.js';
import { UsageError } from './usage-error.js';
import { formatConfigIssues, type SettingSource } from './format-config-issues.js';

/** Keys whose flag is not their kebab-case name: a list given by repeating a flag in the singular (`--backend`). */
const FLAG_NAMES: Readonly<Record<string, string>> = { backends: 'backend' };

/** Settings whose flag may be repeated, each value one more entry of the list. */
export const REPEATABLE_FLAGS: ReadonlySet<string> = new Set(['backend']);

/** `backendUrl` -> `backend-url` (`backends` -> `backend`, a repeatable flag) */
export function toFlagName(key: string): string {
  return FLAG_NAMES[key] ?? key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** `backendUrl` -> `TOKENTAP_BACKEND_URL` */
export function toEnvName(key: string): string {
  return `TOKENTAP_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;
}

export const CONFIG_KEYS = Object.keys(gatewayConfigSchema.shape) as Array<keyof GatewayConfig>;

/**
 * The keys of a config file (`--config` / `TOKENTAP_CONFIG`): YAML when it ends in `.yaml` or `.yml`, JSON otherwise.
 * A file that cannot be read, does not parse or is no object (a mapping) is a UsageError (exit code 2), in one line.
 *
 * @example readConfigFile('tokentap.json'); // { backendUrl: 'http://gpu-1:8000', db: '/data/tokentap.db' }
 * @example readConfigFile('fleet.yaml'); // { backends: [{ flavour: 'vllm', url: 'http://10.0.0.1:8000' }, ...] }
 */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  const yaml = /^\.ya?ml$/i.test(extname(path));
  const kind = yaml ? 'YAML mapping' : 'JSON object';
  let parsed: unknown;
  try {
    // the yaml package's message goes on with a picture of the line; its first line names the line and column
    parsed = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config file ${path} is not a ${kind}: ${firstLine((error as Error).message)}`);
  }
  if (!isRecord(parsed)) throw new UsageError(`config file ${path} is not a ${kind}: its top level is ${describeValue(parsed)}`);
  return parsed;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').replace(/:$/, '');
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/**
 * Merges the gateway config: CLI flags > env (`TOKENTAP_*`) > config file (`--config`, YAML or JSON) > defaults. A
 * repeatable flag (`--backend`) comes as the list of its values.
 * This is the one place that reads `process.env`; bad config throws a UsageError (exit code 2).
 *
 * @example const config = loadConfig(flags, process.env)
 */
export function loadConfig(flags: Record<string, string | string[] | undefined>, env: NodeJS.ProcessEnv): GatewayConfig {
  const configPath = typeof flags.config === 'string' ? flags.config : env.TOKENTAP_CONFIG;
  const merged: Record<string, unknown> = configPath === undefined ? {} : readConfigFile(configPath);
  const sources = new Map<string, SettingSource>();
  for (const key of CONFIG_KEYS) {
    const fromEnv = env[toEnvName(key)];
    if (fromEnv !== undefined && fromEnv !== '') {
      merged[key] = fromEnv;
      sources.set(key, {
        name: toEnvName(key),
        label: `${toEnvName(key)}${shown(key, fromEnv)} (environment)`,
        itemLabel: (index) => `${toEnvName(key)} entry ${shown(key, listItems(fromEnv)[index] ?? '', '')} (environment)`,
      });
    }
    const fromFlag = flags[toFlagName(key)];
    if (fromFlag !== undefined) {
      merged[key] = fromFlag;
      const flag = `--${toFlagName(key)}`;
      const values = typeof fromFlag === 'string' ? [fromFlag] : fromFlag;
      sources.set(key, {
        name: flag,
        label: values.map((value) => `${flag}${shown(key, value, ' ')}`).join(' '),
        itemLabel: (index) => `${flag}${shown(key, values.flatMap(listItems)[index] ?? '', ' ')}`,
      });
    }
  }
  const parsed = gatewayConfigSchema.safeParse(merged);
  if (!parsed.success) {
    // each bad value named where the user set it: a flag, an environment variable or a key of the config file
    const fromFile = (key: string): SettingSource => ({
      name: JSON.stringify(key),
      label: `${JSON.stringify(key)} in ${configPath ?? 'the config file'}`,
      itemLabel: (index) => `${JSON.stringify(key)} entry ${index + 1} in ${configPath ?? 'the config file'}`,
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

/** A list setting's entries as a flag or environment variable holds them: comma-separated. */
function listItems(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function shown(key: string, value: string, separator = '='): string {
  return SECRET_KEYS.has(key) ? '' : `${separator}${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)}`;
}
