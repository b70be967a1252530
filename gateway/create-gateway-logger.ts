import { isPostgresUrl } from '../store/index.js';
import type { DestinationStream, LevelWithSilent, Logger } from 'pino';
import type { GatewayConfig } from './config/gateway-config.js';
import { createLogger, isPrettyLogFormat } from './create-logger.js';

/** What `createGateway({ logger })` takes: off (false), on at `logLevel` (true), on at a level, or a pino logger. */
export type GatewayLoggerOption = boolean | LevelWithSilent | Logger;

/** Where a quiet gateway's lines go: nowhere (its level is `silent`, so pino does not even build them). */
const NOWHERE: DestinationStream = { write: () => undefined };

/**
 * The gateway's logger from its `logger` option. Absent or `false`: silent, so a script embedding the gateway prints
 * nothing it did not ask for (issue 14: every embedding printed pino JSON on stdout). `true`: pino on stdout at
 * `logLevel`, in `logFormat` (default: pretty on a terminal, JSON lines otherwise); a level name: the same at that
 * level; a pino logger: used as given (`tokentap serve` asks with `true`). Configured secrets are censored in every
 * line the gateway builds (createLogger); a logger passed in is used as it is.
 *
 * @example const logger = createGatewayLogger(options.logger, config) // createGateway({ logger: 'debug' })
 */
export function createGatewayLogger(
  option: GatewayLoggerOption | undefined,
  config: Pick<GatewayConfig, 'logLevel' | 'logFormat' | 'backendKey' | 'adminToken'> & { db?: string },
): Logger {
  if (typeof option === 'object') return option;
  // a postgres:// URL's password is a secret too (the URL itself is logged with it redacted)
  const secrets = [config.backendKey, config.adminToken, postgresPassword(config.db)];
  if (option === undefined || option === false) return createLogger({ level: 'silent', destination: NOWHERE, secrets });
  return createLogger({ level: option === true ? config.logLevel : option, pretty: isPrettyLogFormat(config.logFormat), secrets });
}

/** The password of a postgres:// URL, if it has one. */
function postgresPassword(db: string | undefined): string | undefined {
  if (db === undefined || !isPostgresUrl(db)) return undefined;
  try {
    const password = decodeURIComponent(new URL(db).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}
