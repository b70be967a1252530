import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isRecord } from '../core/json/is-record.js';
// the config schema is what cli/ takes past gateway/index.ts (here and in resolve-store-path.ts): every command reads
// its config, and the gateway's surface loads fastify, undici, prom-client and the recorder (about 0.5 s of CPU) that
// `tokentap show` never uses
import { gatewayConfigSchema, type GatewayConfig } from '../gateway/config/gateway-config.js';
import { UsageError } from './usage-error.js';

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
  for (const key of CONFIG_KEYS) {
    const fromEnv = env[toEnvName(key)];
    if (fromEnv !== undefined && fromEnv !== '') merged[key] = fromEnv;
    const fromFlag = flags[toFlagName(key)];
    if (fromFlag !== undefined) merged[key] = fromFlag;
  }
  const parsed = gatewayConfigSchema.safeParse(merged);
  if (!parsed.success) throw new UsageError(`invalid configuration:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
