import { parseArgs } from 'node:util';
import { createGateway, gatewayConfigSchema, publicBindWarnings } from '../../gateway/index.js';
import { backendSpecs } from '../../gateway/config/backend-specs.js';
import { CONFIG_KEYS, loadConfig, REPEATABLE_FLAGS, toFlagName } from '../load-config.js';
import { UsageError } from '../usage-error.js';
import { assertModelDir } from '../assert-model-dir.js';
import { redactPostgresUrl } from '../../store/index.js';
import { listenOrExplain } from '../listen-or-explain.js';
import { formatServeHelp } from '../serve-help.js';

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

/** `tokentap serve --help`: generated from the config schema (cli/serve-help.ts). */
export const SERVE_HELP = formatServeHelp();

/**
 * The flags of `tokentap serve`: one per config key, `--config` and `--help`; a repeatable flag (`--backend`) comes
 * as the list of its values. A flag it does not know, or one without its value, is a UsageError (exit code 2).
 *
 * @example parseServeArgs(['--backend', 'vllm=http://a:8000', '--backend', 'vllm=http://b:8000']).backend // ['vllm=http://a:8000', 'vllm=http://b:8000']
 */
export function parseServeArgs(args: string[]): Record<string, string | string[] | boolean | undefined> {
  const options = Object.fromEntries([
    ...CONFIG_KEYS.map((key) => [toFlagName(key), { type: 'string', multiple: REPEATABLE_FLAGS.has(toFlagName(key)) }]),
    ['config', { type: 'string' }],
    ['help', { type: 'boolean', short: 'h' }],
  ]);
  try {
    return parseArgs({
      args: expandBooleanFlags(args),
      options: options as NonNullable<Parameters<typeof parseArgs>[0]>['options'],
      allowPositionals: false,
    }).values as Record<string, string | string[] | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `tokentap serve`: resolves with the exit code once the gateway has shut down (SIGINT/SIGTERM). */
export async function runServe(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseServeArgs(args);
  if (values.help === true) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const config = loadConfig(values as Record<string, string | string[] | undefined>, env);
  if (config.modelDir !== undefined) assertModelDir(config.modelDir);
  // the library is quiet unless asked; the command asks: logLevel, logFormat (default pretty on a terminal), secrets censored
  const gateway = createGateway({ ...config, logger: true });
  const logger = gateway.app.log;
  const url = await listenOrExplain(gateway, config);
  logger.info(
    {
      url,
      backends: backendSpecs(config).map((spec) => `${spec.id}=${spec.url}`),
      db: redactPostgresUrl(config.db),
      rolloutApi: config.adminToken === undefined ? 'off (no --admin-token)' : `${url}/tokentap/v1`,
      ...(config.ui ? { viewer: `${url}/ui/` } : {}),
    },
    `tokentap listening: point OpenAI clients at ${url}/s/<session>/v1`,
  );
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
      gateway.close().then(
        () => {
          const unfinishedCalls = gateway.closeReport()?.unfinishedCalls ?? 0;
          if (unfinishedCalls === 0) logger.info('shut down: every call recorded, store closed');
          // a full disk took neither their end nor the incomplete mark (docs/reliability.md, promise 7)
          else
            logger.warn(
              { unfinishedCalls },
              `shut down: ${unfinishedCalls} call(s) did not reach a final status (left in_progress; the next start marks them incomplete), store closed`,
            );
          resolve(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
