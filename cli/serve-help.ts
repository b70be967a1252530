import { gatewayConfigSchema } from '../gateway/config/gateway-config.js';
import { GATEWAY_CONFIG_HELP } from '../gateway/config/gateway-config-help.js';
import { CONFIG_KEYS, toEnvName, toFlagName } from './load-config.js';

const COLUMN = 32;
const INDENT = ' '.repeat(COLUMN + 1);

const EXAMPLES = `Examples:
  tokentap serve --backend-url http://gpu-1:8000 --db /data/tokentap.db
  tokentap serve --port 0 --model Qwen/Qwen3-8B         any free port (the URL is logged); one model name upstream
  TOKENTAP_ADMIN_TOKEN=$(openssl rand -hex 16) tokentap serve --host 0.0.0.0 --require-session-key
  tokentap serve --config tokentap.json --log-format json   flags win over env, env over the file
  tokentap serve --backend vllm=http://10.0.0.1:8000 --backend sglang=http://10.0.0.3:30000   a fleet of replicas
  tokentap serve --config fleet.yaml                    backends, their models and keys in a file (docs/examples/fleet.yaml)
`;

/**
 * `tokentap serve --help`, generated from the config schema: every key with its flag, value, description
 * (gateway-config-help.ts), default and environment variable, so a new setting cannot be missing from it.
 *
 * @example process.stdout.write(formatServeHelp());
 */
export function formatServeHelp(): string {
  const defaults = gatewayConfigSchema.parse({}) as Record<string, unknown>;
  const options = CONFIG_KEYS.map((key) => {
    const help = GATEWAY_CONFIG_HELP[key];
    const choices = choicesOf(gatewayConfigSchema.shape[key]);
    const flag = `  --${toFlagName(key)} ${choices?.join('|') ?? help.value}`;
    const fallback = formatDefault(key, defaults[key]) ?? help.unset ?? 'none';
    // a flag too long for its column takes a line of its own
    const head = flag.length < COLUMN ? `${flag.padEnd(COLUMN)} ` : `${flag}\n${INDENT}`;
    return `${head}${help.description}\n${INDENT}default ${fallback}; env ${toEnvName(key)}`;
  });
  return `Usage: tokentap serve [options]

Runs the recording gateway in front of an inference backend.
Point a harness at http://HOST:PORT/s/SESSION/v1 (OpenAI clients) to record its calls as SESSION.

Options (each also an environment variable, or a camelCase key of the --config file; flags win, then env,
then the file; docs/config.md has each in full):
${options.join('\n')}
${'  --config FILE'.padEnd(COLUMN)} YAML (.yaml, .yml) or JSON file with any of the keys above (camelCase)
${INDENT}env TOKENTAP_CONFIG
${'  -h, --help'.padEnd(COLUMN)} this help

${EXAMPLES}`;
}

/** The choices of an enum setting, through its `.default()` / `.optional()` wrappers. */
function choicesOf(schema: unknown): readonly string[] | undefined {
  let current = schema as { def?: { innerType?: unknown }; options?: unknown } | undefined;
  while (current?.def?.innerType !== undefined) current = current.def.innerType as typeof current;
  const options = current?.options;
  return Array.isArray(options) && options.every((option) => typeof option === 'string') ? (options as string[]) : undefined;
}

function formatDefault(key: string, value: unknown): string | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (typeof value !== 'number' || value === 0) return String(value);
  if (key.endsWith('Ms') && value >= 1000) return `${value} (${value >= 60_000 ? `${value / 60_000} min` : `${value / 1000} s`})`;
  if (/(Bytes|Limit|Size)$/.test(key) && value >= 1024)
    return `${value} (${value >= 1024 * 1024 ? `${value / (1024 * 1024)} MiB` : `${value / 1024} KiB`})`;
  return String(value);
}
