import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** Header and body paths never written to logs; configured secrets are added by createLogger. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
];

export interface CreateLoggerOptions {
  level: LoggerOptions['level'];
  /** pretty, human-readable lines (the CLI passes true on a TTY) */
  pretty?: boolean;
  /** values to censor wherever they appear in a logged string (backend key, admin token) */
  secrets?: Array<string | undefined>;
  /** where lines go instead of stdout (tests read what was logged; ignored with `pretty`, which censors messages only) */
  destination?: DestinationStream;
}

/**
 * The gateway's pino logger: headers that carry keys are redacted, and so is any configured secret
 * that shows up inside a logged message or error.
 *
 * @example const logger = createLogger({ level: 'info', secrets: [config.backendKey] })
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
  const censorSecrets = (text: string): string => secrets.reduce((result, secret) => result.split(secret).join('[Redacted]'), text);
  const pinoOptions: LoggerOptions = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    hooks: secrets.length === 0 ? {} : {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? censorSecrets(arg) : arg)) as Parameters<typeof method>);
      },
    },
    ...(options.pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l' } } } : {}),
  };
  if (options.pretty) return pino(pinoOptions);
  const destination = options.destination ?? pino.destination(1);
  // the hook above sees only message strings: a secret inside a logged object (an error's message, a URL field)
  // is censored here, in the finished line, as written and as JSON escapes it
  const written = secrets.flatMap((secret) => [...new Set([secret, JSON.stringify(secret).slice(1, -1)])]);
  return written.length === 0 ? pino(pinoOptions, destination) : pino(pinoOptions, {
    write: (line: string) => destination.write(written.reduce((result, secret) => result.split(secret).join('[Redacted]'), line)),
  });
}
