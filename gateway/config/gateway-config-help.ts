import type { GatewayConfigInput } from './gateway-config.js';

/** One setting as `tokentap serve --help` shows it; its flag, environment variable and default come from the schema. */
export interface ConfigHelpEntry {
  /** the placeholder after the flag: `URL`, `N`, `MS` (enum choices are read from the schema) */
  readonly value: string;
  /** one line: what the setting does (docs/config.md has the long form) */
  readonly description: string;
  /** what an unset optional setting means, shown as its default ("none" when absent) */
  readonly unset?: string;
}

/**
 * The one-line help of every config key, for `tokentap serve --help`. Typed over the schema's keys, so a setting
 * added to gatewayConfigSchema without a line here does not compile.
 *
 * @example GATEWAY_CONFIG_HELP.port.description // 'port to listen on (0: any free port)'
 */
export const GATEWAY_CONFIG_HELP: { readonly [Key in keyof GatewayConfigInput]-?: ConfigHelpEntry } = {
  backendUrl: {
    value: 'URL',
    description: 'the one inference backend when no --backend is given (vLLM, SGLang or OpenAI-compatible; flavour detected)',
  },
  backends: {
    value: 'FLAVOUR=URL',
    description: 'a backend replica, vllm=URL or sglang=URL; repeat for a fleet (env: comma-separated; the file: {id, flavour, url, models, key})',
    unset: 'the one --backend-url',
  },
  backendAffinity: {
    value: 'MODE',
    description: "session: a session's calls stay on one replica (its prefix cache); none: each call to the least busy, in turn",
  },
  backendKey: { value: 'KEY', description: "API key sent to the backend (the harness's own key is never forwarded)" },
  db: {
    value: 'FILE|URL',
    description:
      "SQLite database file, created if missing (its folder is not); ':memory:' keeps nothing; or a postgres:// URL (gateways on many hosts sharing one store, docs/scale-out.md)",
  },
  port: { value: 'N', description: 'port to listen on (0: any free port)' },
  host: { value: 'ADDRESS', description: 'address to bind (0.0.0.0: every interface; anything but loopback warns)' },
  allowedHosts: {
    value: 'NAMES',
    description:
      'Host names answered besides loopback, IP addresses and --public-url (DNS rebinding guard; others: 421); comma-separated, .example.com for subdomains, * for any',
  },
  bodyLimit: { value: 'BYTES', description: 'largest request body (more: 413)' },
  maxHeaderSize: { value: 'BYTES', description: 'largest request line + headers (more: 431)' },
  maxJsonDepth: { value: 'N', description: 'deepest nesting of a JSON body, at most 1000 (deeper: 400)' },
  requestTimeoutMs: { value: 'MS', description: 'time a client has to send its whole request, not the answer (slower: 408; 0: no limit)' },
  model: { value: 'NAME', description: 'model name sent to the backend whatever the harness asks (its own is recorded)', unset: "the harness's" },
  topLogprobs: { value: 'N', description: 'top_logprobs recorded per token, 0 to 20 (0: only the sampled token)' },
  backendHeadersTimeoutMs: { value: 'MS', description: "wait for the backend's response headers (a non-streamed completion sends them when done)" },
  backendBodyTimeoutMs: { value: 'MS', description: 'longest silence inside a backend body, between two chunks' },
  backendConnections: {
    value: 'N',
    description: 'keep-alive connections to the backend; each streaming call holds one, so this caps concurrent calls',
  },
  backendConnectTimeoutMs: { value: 'MS', description: 'wait for a TCP (and TLS) connection to the backend' },
  backendRetries: {
    value: 'N',
    description: 'resends of a backend request before any byte reached the harness (refused, reset, 429/502/503/504), 0 to 10',
  },
  backendRetryBackoffMs: { value: 'MS', description: "first retry's backoff ceiling; it doubles per retry, each wait drawn at random below it" },
  backendRetryMaxBackoffMs: { value: 'MS', description: 'the backoff ceiling never exceeds this' },
  backendRetryAfterMaxMs: { value: 'MS', description: 'longest backend Retry-After waited out; a longer one goes to the harness unretried' },
  recordFailure: {
    value: 'MODE',
    description: 'when a call cannot be written to the store: refuse it (503) or serve it unrecorded (counted, logged)',
  },
  dbMaxBytes: {
    value: 'BYTES',
    description: 'the largest the database may grow (a quota on a shared disk); past it, writes fail as on a full disk',
    unset: 'no limit',
  },
  dbQueryTimeoutMs: {
    value: 'MS',
    description: "PostgreSQL: a statement unanswered this long fails and its connection is dropped (bounds a silent server's hold on the gateway)",
  },
  recordInWorker: { value: '[true|false]', description: 'write the store on a worker thread, off the event loop (the flag alone: true)' },
  tokenFaithful: { value: 'MODELS', description: 'models served token-in-token-out (docs/token-faithful.md), comma-separated, * for all' },
  modelDir: {
    value: 'DIR',
    description: 'Hugging Face model folder (tokenizer.json) token-faithful mode renders prompts with',
    unset: "the backend's /tokenize",
  },
  modelFamily: {
    value: 'NAME',
    description: "token-faithful mode's model family (docs/model-families.md); auto: from --model-dir's config.json or template, qwen3 without one",
  },
  reasoningParser: { value: 'NAME', description: "token-faithful mode's reasoning parser (as vLLM's --reasoning-parser)", unset: "the family's" },
  toolCallParser: {
    value: 'NAME',
    description: "token-faithful mode's tool-call parser (as vLLM's --tool-call-parser)",
    unset: "the family's default",
  },
  adminToken: {
    value: 'TOKEN',
    description: 'bearer token for the rollout API (/tokentap/v1), at least 16 characters',
    unset: 'none: that API answers 401',
  },
  requireSessionKey: {
    value: '[true|false]',
    description: 'refuse model calls without a session key: no implicit path or default sessions (the flag alone: true)',
  },
  ui: {
    value: '[true|false]',
    description: 'serve the trajectory viewer at /ui (read-only; its API takes the admin token, and needs one off loopback)',
  },
  uiInWorker: {
    value: '[true|false]',
    description: "answer the viewer's API on a thread of its own, off the event loop (the flag alone: true)",
  },
  rateLimit: {
    value: 'RATE[,BURST]',
    description: 'requests per second per session key, admin token or client address (over it: 429 + Retry-After)',
    unset: 'off',
  },
  sessionIdleTimeoutMs: { value: 'MS', description: 'end an open rollout session as aborted after this long without a call (0: never)' },
  shutdownTimeoutMs: { value: 'MS', description: 'on SIGTERM/SIGINT, how long in-flight calls may finish before they are cut (recorded aborted)' },
  instanceHeartbeatMs: {
    value: 'MS',
    description: 'refresh of this gateway in the database; a gateway on another host is gone after 10 missed (same on every gateway)',
  },
  eventStreamMaxBufferBytes: {
    value: 'BYTES',
    description: 'how far an admin event reader may fall behind before its stream is cut (it reconnects)',
  },
  pauseMode: { value: 'MODE', description: 'what a pause does to new calls: hold them until resume, or reject them (429 + Retry-After)' },
  publicUrl: { value: 'URL', description: 'base URL put in session URLs (behind a proxy or in a container)', unset: 'the address a request came to' },
  logLevel: { value: 'LEVEL', description: 'pino level; info: one line per model call' },
  logFormat: { value: 'FORMAT', description: 'json lines (for a log collector) or pino-pretty text', unset: 'pretty on a terminal, else json' },
};
