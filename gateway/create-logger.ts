import { createRequire } from 'node:module';
import pino, { type Bindings, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { createLogCensor, type LogCensor } from './security/create-log-censor.js';

/** Header and body paths never written to logs; configured secrets are added by createLogger. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
];

/** The fields pino hands to a serializer of ours; every other field is censored by `formatters.log`. */
const SERIALIZED_FIELDS = new Set(['msg', 'req', 'res', 'err']);

const PRETTY_OPTIONS = { translateTime: 'HH:MM:ss.l' };

export interface CreateLoggerOptions {
  level: LoggerOptions['level'];
  /** pretty, human-readable lines through pino-pretty (see isPrettyLogFormat); default JSON lines */
  pretty?: boolean;
  /** values to censor wherever they appear in a logged string (backend key, admin token) */
  secrets?: Array<string | undefined>;
  /** where lines go instead of stdout (tests read what was logged); with `pretty`, pino-pretty's lines, uncoloured */
  destination?: DestinationStream;
}

/**
 * The gateway's pino logger. Everything a line is made of is censored before pino serializes it, so every
 * destination (JSON, pino-pretty, any transport) gets the censored line (issue 12: pino-pretty printed URLs with
 * `?token=` in clear, because the censoring was a wrapper around the JSON destination only): the message, each
 * field (`formatters.log`), child bindings, the request (its URL), errors (message, stack, fields, causes).
 * Censored are configured secrets, session keys and API keys by shape, URL userinfo, credential query parameters
 * and credential fields (`authorization`, `x-api-key`, `cookie`, ...) at any depth; see createLogCensor.
 *
 * @example const logger = createLogger({ level: 'info', secrets: [config.backendKey] })
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const censor = createLogCensor(options.secrets ?? []);
  const pinoOptions: LoggerOptions = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: censoringSerializers(censor),
    formatters: {
      log: (object) => censorFields(object, censor),
      bindings: (bindings) => censor.value(bindings) as Record<string, unknown>,
    },
    hooks: {
      // the last net, for what a serializer we do not own (a route's own) let through: the finished line, as
      // written and as JSON escapes it, before it reaches any destination
      streamWrite: finishedLineCensor(options.secrets ?? []),
    },
  };
  const logger = pino(pinoOptions, destinationOf(options));
  // pino gives child loggers no bindings formatter: their bindings (fastify's request id, a call's fields) are
  // censored as they are bound; children of children inherit this `child` from the root
  const child = logger.child as unknown as (this: unknown, bindings: Bindings, childOptions?: unknown) => Logger;
  logger.child = function censoredChild(this: unknown, bindings: Bindings, childOptions?: unknown): Logger {
    return child.call(this, censor.value(bindings) as Bindings, childOptions);
  } as unknown as Logger['child'];
  return logger;
}

/**
 * Whether a log format means pino-pretty: `pretty` does, `json` does not, and none given means pretty exactly when
 * stdout is a terminal (a person reads it) and JSON lines otherwise (a pipe, a file, a log collector).
 *
 * @example createLogger({ level: 'info', pretty: isPrettyLogFormat(config.logFormat) })
 */
export function isPrettyLogFormat(format: 'json' | 'pretty' | undefined): boolean {
  return format === undefined ? process.stdout.isTTY === true : format === 'pretty';
}

function destinationOf(options: CreateLoggerOptions): DestinationStream {
  if (!options.pretty) return options.destination ?? pino.destination(1);
  // pino-pretty is loaded only for a pretty logger; on a terminal it formats on its own thread (a transport)
  // colours only for a terminal: `--log-format pretty` into a pipe or a file gets plain text
  if (options.destination === undefined)
    return pino.transport({ target: 'pino-pretty', options: { ...PRETTY_OPTIONS, colorize: process.stdout.isTTY === true } }) as DestinationStream;
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({ ...PRETTY_OPTIONS, colorize: false, destination: options.destination });
}

/**
 * The message (pino hands every message to the `msg` serializer, an error's own message and `%s` arguments
 * included), the request (fastify's fields, its URL censored), the response and errors, each censored.
 */
function censoringSerializers(censor: LogCensor): NonNullable<LoggerOptions['serializers']> {
  return {
    msg: (message: unknown) => (typeof message === 'string' ? censor.text(message) : censor.value(message)),
    req: (request: {
      method?: string;
      url?: string;
      host?: string;
      ip?: string;
      headers?: Record<string, unknown>;
      socket?: { remotePort?: number };
      raw?: unknown;
    }) =>
      censor.value(
        // fastify's request: what fastify's own serializer logs (never the headers); anything else, censored whole
        request.raw === undefined
          ? request
          : {
              method: request.method,
              url: request.url,
              version: request.headers?.['accept-version'],
              host: request.host,
              remoteAddress: request.ip,
              remotePort: request.socket?.remotePort,
            },
      ),
    res: (reply: { statusCode?: number; raw?: unknown }) => (reply.raw === undefined ? censor.value(reply) : { statusCode: reply.statusCode }),
    err: (error: unknown) => censor.value(error instanceof Error ? pino.stdSerializers.err(error) : error),
  };
}

function censorFields(object: Record<string, unknown>, censor: LogCensor): Record<string, unknown> {
  const censored: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) censored[key] = SERIALIZED_FIELDS.has(key) ? value : censor.value(value);
  return censored;
}

function finishedLineCensor(secrets: ReadonlyArray<string | undefined>): (line: string) => string {
  const written = [
    ...new Set(
      secrets
        .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
        .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]),
    ),
  ];
  return (line) => written.reduce((result, secret) => (result.includes(secret) ? result.split(secret).join('[Redacted]') : result), line);
}
