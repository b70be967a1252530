import { stdSerializers } from 'pino';

const CENSORED = '[Redacted]';

/**
 * Secrets recognised by their shape, wherever they are in a logged string: a tokentap session key (`tt-` and 43
 * base64url characters), OpenAI / Anthropic style API keys (`sk-...`, `sk-ant-...`), Hugging Face tokens, and the
 * credential after `Bearer`.
 */
const SHAPED_SECRETS: ReadonlyArray<[pattern: RegExp, replacement: string]> = [
  [/(?<![A-Za-z0-9_-])tt-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, CENSORED],
  [/(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}/g, CENSORED],
  [/(?<![A-Za-z0-9_-])hf_[A-Za-z0-9]{20,}/g, CENSORED],
  // a credential has a digit or a sign in it; English after the word ("Bearer tokens are") does not
  [/\b(Bearer)\s+(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${CENSORED}`],
];

/** `scheme://user:password@host`: the userinfo of any URL (a backend URL with basic-auth credentials). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/**
 * A query or fragment parameter whose name says it carries a credential (`?token=`, `&api_key=`, `access_token`,
 * `X-Amz-Signature`, `password`, ...): its value is censored, its name kept.
 */
const CREDENTIAL_PARAMETER = /([?&;#][^=&#\s"'<>]*?(?:token|key|secret|pass|pwd|auth|credential|sig)[^=&#\s"'<>]*=)[^&#\s"'<>]+/gi;

/** Fields whose string value is a credential whatever it looks like (headers, config keys), at any depth. */
const CREDENTIAL_FIELD =
  /^(?:authorization|proxy-authorization|x-api-key|api[-_]?key|cookie|set-cookie|password|passwd|secret|.*token|session[-_]?key|backend[-_]?key)$/i;

/** Deeper than this a logged value is cut, not walked (a log line is not a database dump). */
const MAX_DEPTH = 12;

export interface LogCensor {
  /** a string with every configured secret and every secret-shaped part replaced by `[Redacted]` */
  text(value: string): string;
  /**
   * A censored copy of a logged value: strings censored, credential fields redacted, errors serialized as pino
   * does (`type`, `message`, `stack`, own fields, `cause`) and then censored; the value itself is never changed.
   */
  value(value: unknown): unknown;
}

/**
 * Censors what a log line is made of, before pino serializes it and before any destination (JSON on stdout,
 * pino-pretty, a transport) formats it: configured secrets by value (also URL-encoded), secrets by shape, URL
 * userinfo and credential query parameters (issue 12: pretty logs printed `?token=...` in clear).
 *
 * @example
 * const censor = createLogCensor([config.backendKey, config.adminToken]);
 * censor.text('GET /tokentap/v1/state?token=admin-0123456789abcdef') // 'GET /tokentap/v1/state?token=[Redacted]'
 */
export function createLogCensor(secrets: ReadonlyArray<string | undefined>): LogCensor {
  const exact = [
    ...new Set(
      secrets
        .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
        .flatMap((secret) => [secret, encodeURIComponent(secret)]),
    ),
  ]
    // longest first: a secret that contains another is replaced whole
    .sort((a, b) => b.length - a.length);
  const text = (value: string): string => {
    let result = value;
    for (const secret of exact) if (result.includes(secret)) result = result.split(secret).join(CENSORED);
    for (const [pattern, replacement] of SHAPED_SECRETS) result = result.replace(pattern, replacement);
    return result.replace(URL_USERINFO, `$1${CENSORED}@`).replace(CREDENTIAL_PARAMETER, `$1${CENSORED}`);
  };
  const walk = (value: unknown, depth: number, seen: Set<object>): unknown => {
    if (typeof value === 'string') return text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Too deep]';
    seen.add(value);
    try {
      if (value instanceof Error) return walk(stdSerializers.err(value), depth, seen);
      if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen));
      // URL, Date, Buffer...: logged as their JSON form, so censored in that form
      const toJson = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJson === 'function') return walk((toJson as () => unknown).call(value), depth + 1, seen);
      const copy: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value)) {
        copy[key] = typeof field === 'string' && CREDENTIAL_FIELD.test(key) ? CENSORED : walk(field, depth + 1, seen);
      }
      return copy;
    } finally {
      seen.delete(value);
    }
  };
  return { text, value: (value) => walk(value, 0, new Set()) };
}
