import { parseArgs } from 'node:util';
import { createGateway, gatewayConfigSchema, publicBindWarnings } from '../../gateway/index.js';
import { CONFIG_KEYS, loadConfig, toEnvName, toFlagName } from '../load-config.js';
import { UsageError } from '../usage-error.js';
import { assertModelDir } from '../assert-model-dir.js';
import { listenOrExplain } from '../listen-or-explain.js';

const FLAG_HELP: Record<string, string> = {
  'backend-url': 'inference backend (vLLM or OpenAI-compatible), default http://127.0.0.1:8000',
  'backend-key': 'API key sent to the backend (the harness key is never forwarded)',
  db: 'SQLite database file, default ./tokentap.db',
  port: 'port to listen on, default 4000',
  host: 'address to bind, default 127.0.0.1',
  'allowed-hosts': 'Host header names answered besides loopback, IP addresses and --public-url (DNS rebinding guard; others: 421), comma-separated, .example.com for subdomains, * for any',
  'body-limit': 'largest request body in bytes, default 67108864 (64 MiB)',
  'max-header-size': 'largest request line + headers in bytes (more: 431), default 16384',
  'max-json-depth': 'deepest nesting of a JSON body (deeper: 400), default 512, at most 1000',
  'request-timeout-ms': 'time a client has to send its whole request, not the answer (slower: 408; 0: none), default 300000',
  model: 'model name sent to the backend whatever the harness asks (its own is recorded)',
  'top-logprobs': 'top_logprobs recorded per token, default 0',
  'backend-headers-timeout-ms': 'wait for backend response headers, default 600000',
  'backend-body-timeout-ms': 'longest silence inside a backend body, default 300000',
  'backend-connections': 'keep-alive connections to the backend, default 1024',
  'record-failure': 'refuse | serve: what to do when the store cannot be written, default refuse',
  'record-in-worker': 'true | false: write the store on a worker thread, off the event loop, default true',
  'token-faithful': 'models served token-in-token-out, comma-separated or * for all (docs/token-faithful.md), default none',
  'model-dir': 'Hugging Face model folder token-faithful mode renders with, default the backend\'s /tokenize',
  'reasoning-parser': 'qwen3 | none: token-faithful reasoning parser, default qwen3',
  'tool-call-parser': 'hermes | qwen3-coder | none: token-faithful tool-call parser, default hermes',
  'log-level': 'fatal|error|warn|info|debug|trace|silent, default info',
  'log-format': 'json | pretty: JSON lines or pino-pretty text, default pretty on a terminal, json otherwise',
  'admin-token': 'bearer token for the rollout API (/tokentap/v1), at least 16 characters; without it that API answers 401',
  'require-session-key': 'refuse model calls without a session key (no implicit path/default sessions), default false',
  'rate-limit': 'requests per second per session key, admin token or client address, as RATE or RATE,BURST (429 + Retry-After), default off',
  'session-idle-timeout-ms': 'end an open rollout session as aborted after this long without a call (0: never), default 1800000',
  'event-stream-max-buffer-bytes': 'bytes an admin event reader may fall behind before its stream is cut off (it reconnects), default 4194304',
  'pause-mode': 'hold | reject: what a pause does to new calls (hold until resume, or 429 + Retry-After), default hold',
  'shutdown-timeout-ms': 'on SIGTERM/SIGINT, how long in-flight calls may finish before they are cut (recorded aborted), default 30000',
  'public-url': 'base URL put in session URLs (behind a proxy), default the address a request came to',
};

/** Settings that are on or off: `--require-session-key` alone means true (as do `true`, `1`, `yes` after it). */
const BOOLEAN_FLAGS = new Set(CONFIG_KEYS.filter((key) => typeof gatewayConfigSchema.parse({})[key] === 'boolean').map(toFlagName));
const BOOLEAN_WORDS = new Set(['true', 'false', '1', '0', 'yes', 'no']);

/** `--flag` with no value after it becomes `--flag=true`, so on/off settings read like switches. */
export function expandBooleanFlags(args: string[]): string[] {
  return args.map((arg, index) => {
    const next = args[index + 1];
    const isSwitch = arg.startsWith('--') && BOOLEAN_FLAGS.has(arg.slice(2));
    return isSwitch && (next === undefined || !BOOLEAN_WORDS.has(next)) ? `${arg}=true` : arg;
  });
}

export const SERVE_HELP = `Usage: tokentap serve [options]

Runs the recording gateway in front of an inference backend.
Point a harness at http://HOST:PORT/s/SESSION/v1 (OpenAI clients) to record its calls as SESSION.

Options (each also as env TOKENTAP_<NAME> or a key of the --config JSON file; flags win, then env, then file):
${CONFIG_KEYS.map((key) => `  --${toFlagName(key).padEnd(28)} ${FLAG_HELP[toFlagName(key)] ?? ''} [${toEnvName(key)}]`).join('\n')}
  --config FILE                  JSON file with any of the keys above (camelCase)
  -h, --help                     this help
`;

/** `tokentap serve`: resolves with the exit code once the gateway has shut down (SIGINT/SIGTERM). */
export async function runServe(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = Object.fromEntries([...CONFIG_KEYS.map((key) => [toFlagName(key), { type: 'string' }]), ['config', { type: 'string' }], ['help', { type: 'boolean', short: 'h' }]]);
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: expandBooleanFlags(args), options: options as NonNullable<Parameters<typeof parseArgs>[0]>['options'], allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const config = loadConfig(values as Record<string, string | undefined>, env);
  if (config.modelDir !== undefined) assertModelDir(config.modelDir);
  // the library is quiet unless asked; the command asks: logLevel, logFormat (default pretty on a terminal), secrets censored
  const gateway = createGateway({ ...config, logger: true });
  const logger = gateway.app.log;
  const url = await listenOrExplain(gateway, config);
  logger.info({ url, backend: config.backendUrl, db: config.db, rolloutApi: config.adminToken === undefined ? 'off (no --admin-token)' : `${url}/tokentap/v1` }, `tokentap listening: point OpenAI clients at ${url}/s/<session>/v1`);
  // listen() has logged these as warnings; they go to stderr too, where a person starting it looks (docs/security.md)
  for (const warning of publicBindWarnings(config)) process.stderr.write(`WARNING: ${warning}\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        // a second signal means "now": calls still in flight stay in progress, marked incomplete at the next start
        logger.warn({ signal }, 'second signal: exiting without waiting for in-flight calls');
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down: no new calls, in-flight calls finish');
      gateway.close().then(() => {
        const unfinishedCalls = gateway.closeReport()?.unfinishedCalls ?? 0;
        if (unfinishedCalls === 0) logger.info('shut down: every call recorded, store closed');
        // a full disk took neither their end nor the incomplete mark (docs/reliability.md, promise 7)
        else logger.warn({ unfinishedCalls }, `shut down: ${unfinishedCalls} call(s) did not reach a final status (left in_progress; the next start marks them incomplete), store closed`);
        resolve(0);
      }, (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        resolve(1);
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
