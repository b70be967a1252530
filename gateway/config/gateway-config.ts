import { z } from 'zod';
import { rateLimitSetting } from './rate-limit-setting.js';
import { hostnameOf } from './hostname-of.js';
import { backendsSetting } from './backends-setting.js';
import { modelFamilyNames, reasoningParserNames, toolCallParserNames } from '../../model-format/families/model-families.js';

/** The one backend when none is configured: a vLLM (or SGLang, detected at start) on this machine. */
export const DEFAULT_BACKEND_URL = 'http://127.0.0.1:8000';

/** How log lines are written: JSON lines, or pino-pretty's text for people. */
export const LOG_FORMATS = ['json', 'pretty'] as const;

const gatewaySettings = z.strictObject({
  /**
   * the inference backend when `backends` lists none (vLLM, SGLang or any OpenAI-compatible server; its flavour is
   * detected at start); a trailing /v1 is accepted
   */
  backendUrl: z.url({ protocol: /^https?$/ }).default(DEFAULT_BACKEND_URL),
  /**
   * the backend replicas (docs/backends.md): `{ id?, flavour: 'vllm' | 'sglang', url, models?, key? }` entries or
   * `flavour=url` strings (the repeatable flag `--backend`; comma-separated in `TOKENTAP_BACKENDS`); ids default to
   * `<flavour>-<n>` and are unique. Given together with `backendUrl`, a config error
   */
  backends: backendsSetting().default([]),
  /**
   * how a session's calls are placed on the replicas: `session` keeps them on one (its prefix cache stays warm),
   * `none` sends every call to the least busy replica, ties in turn (round robin; a baseline for bench/load.ts)
   */
  backendAffinity: z.enum(['session', 'none']).default('session'),
  /** API key tokentap sends to the backend; the harness's own key is never forwarded */
  backendKey: z.string().min(1).optional(),
  /** SQLite database file (':memory:' keeps nothing), or a postgres:// URL of a PostgreSQL database (docs/scale-out.md) */
  db: z.string().min(1).default('./tokentap.db'),
  /** port to listen on (0 picks a free one) */
  port: z.coerce.number().int().min(0).max(65535).default(4000),
  /** address to bind; loopback unless told otherwise */
  host: z.string().min(1).default('127.0.0.1'),
  /**
   * Host header names answered besides the loopback names, IP addresses, a named `host` and the host of
   * `publicUrl` (a DNS rebinding guard, docs/security.md): `.example.com` takes it and its subdomains, `*` any
   * Host (the check off); a comma-separated string is accepted (flag and env). Others get 421
   */
  allowedHosts: z
    .union([z.string(), z.array(z.string().min(1))])
    .transform(splitModelList)
    .refine((entries) => entries.every((entry) => entry === '*' || hostnameOf(entry.replace(/^\./, '')) !== null), {
      message: 'allowedHosts are host names or addresses (gpu-node-3, .cluster.local, 10.0.0.5), or *',
    })
    .default([]),
  /** largest request body in bytes (Claude Code contexts exceed fastify's 1 MiB default) */
  bodyLimit: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /** largest request head (request line and headers) in bytes; more is answered 431 (Node's own default) */
  maxHeaderSize: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024),
  /** deepest nesting of arrays and objects in a JSON body; deeper is refused with 400 before anything else reads it */
  maxJsonDepth: z.coerce.number().int().min(1).max(1000).default(512),
  /** ms a client has to send its whole request (headers and body; not the answer); slower is 408 (0: no limit) */
  requestTimeoutMs: z.coerce.number().int().min(0).default(300_000),
  /** model name sent to the backend, whatever the harness asks for (its own name is recorded) */
  model: z.string().min(1).optional(),
  /** top_logprobs recorded on every call (0: only the sampled token's logprob) */
  topLogprobs: z.coerce.number().int().min(0).max(20).default(0),
  /** ms to wait for the backend's response headers (a non-streamed completion answers only when done) */
  backendHeadersTimeoutMs: z.coerce.number().int().positive().default(600_000),
  /** ms the backend's body may stay silent between two chunks */
  backendBodyTimeoutMs: z.coerce.number().int().positive().default(300_000),
  /** keep-alive connections to the backend: each streaming call holds one until it ends, so this caps concurrent calls (more wait) */
  backendConnections: z.coerce.number().int().positive().default(1024),
  /** ms to wait for a TCP (and TLS) connection to the backend */
  backendConnectTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /**
   * times a backend request is sent again, only before any byte reached the harness: after a connection failure
   * (refused, DNS, reset before the headers, connect timeout) or a 429/502/503/504 answer (0: never)
   */
  backendRetries: z.coerce.number().int().min(0).max(10).default(2),
  /** ms of the first retry's backoff ceiling; it doubles per retry and the wait is drawn at random below it (full jitter) */
  backendRetryBackoffMs: z.coerce.number().int().min(0).default(250),
  /** ms the backoff ceiling never exceeds */
  backendRetryMaxBackoffMs: z.coerce.number().int().min(0).default(5_000),
  /** ms of the longest backend `Retry-After` waited out; a longer one is passed to the harness unretried */
  backendRetryAfterMaxMs: z.coerce.number().int().min(0).default(10_000),
  /** what to do when a call cannot be written to the store: refuse it (503) or serve it unrecorded (counted, logged) */
  recordFailure: z.enum(['refuse', 'serve']).default('refuse'),
  /** the largest the database may grow, in bytes (a quota on a shared disk); past it writes fail as on a full disk */
  dbMaxBytes: z.coerce.number().int().positive().optional(),
  /**
   * PostgreSQL: ms a statement of the gateway's may go unanswered before its connection is taken for lost (the call
   * fails as while the database is away; the next statement connects anew). The event loop waits on its own statements,
   * so this bounds how long a server gone silent (a partition) can hold the gateway still
   */
  dbQueryTimeoutMs: z.coerce.number().int().min(100).default(5_000),
  /**
   * write the store (hashing, compression, SQLite) on a worker thread instead of the gateway's event loop; a call
   * is still committed before its last byte. Applies when the gateway opens `db` itself (not ':memory:')
   */
  recordInWorker: booleanSetting().default(true),
  /**
   * models served token-in-token-out (docs/token-faithful.md): a list of model names (the harness's or the
   * one sent to the backend), `*` for all; a comma-separated string is accepted (flag and env). Empty: off.
   */
  tokenFaithful: z
    .union([z.string(), z.array(z.string().min(1))])
    .transform(splitModelList)
    .default([]),
  /** a Hugging Face model folder (tokenizer.json, tokenizer_config.json or chat_template.jinja) that token-faithful
   * mode renders prompts with; without it the backend's /tokenize renders them */
  modelDir: z.string().min(1).optional(),
  /**
   * the model family token-faithful mode reads output as (docs/model-families.md): a family's name, or `auto`: detected
   * from `modelDir` (`config.json`'s `model_type`, the template's markers), Qwen3 without one; a folder whose family
   * cannot be detected is refused at start
   */
  modelFamily: z.enum(['auto', ...modelFamilyNames()]).default('auto'),
  /** how token-faithful mode splits reasoning from the completion text (vLLM's --reasoning-parser); unset: the family's */
  reasoningParser: z.enum(['none', ...reasoningParserNames()]).optional(),
  /** how token-faithful mode reads tool calls from the completion text (vLLM's --tool-call-parser); unset: the family's default */
  toolCallParser: z.enum(['none', ...toolCallParserNames()]).optional(),
  /** bearer token for the rollout admin API (/tokentap/v1/...); without one that API answers 401, session keys still work */
  adminToken: z.string().min(16, 'adminToken must be at least 16 characters').optional(),
  /** refuse model calls without a session key (no implicit path, header or default sessions) */
  requireSessionKey: booleanSetting().default(false),
  /**
   * serve the trajectory viewer at /ui (docs/viewer.md): read-only pages and API over this gateway's store, live;
   * its API asks for the admin token whenever one is set, and is refused off loopback without one
   */
  ui: booleanSetting().default(false),
  /**
   * answer the viewer's API (`ui`) on a thread of its own with a read-only connection of its own, so a heavy page
   * never holds the gateway's event loop. Applies when the gateway opens `db` itself (not ':memory:')
   */
  uiInWorker: booleanSetting().default(true),
  /** requests per second per session key, admin token or client address: `{ requestsPerSecond, burst }` or "5,20"; off when absent */
  rateLimit: rateLimitSetting().optional(),
  /** ms without a call after which an open rollout session ends as `aborted` (0: never) */
  sessionIdleTimeoutMs: z.coerce
    .number()
    .int()
    .min(0)
    .default(30 * 60 * 1000),
  /**
   * ms a shutdown (SIGTERM, SIGINT, `close()`) lets in-flight calls finish; new calls are refused meanwhile. The
   * calls still running then are cut and recorded `aborted` (0: cut at once)
   */
  shutdownTimeoutMs: z.coerce.number().int().min(0).default(30_000),
  /**
   * ms between refreshes of this gateway's row in the database (gateway_instances), each also recovering the calls of
   * gateways that are gone; one on another host counts as gone after 10 of these without a refresh. Give every gateway
   * of a database the same value (each judges the others by its own)
   */
  instanceHeartbeatMs: z.coerce.number().int().min(100).default(30_000),
  /**
   * bytes an admin event reader (`GET /tokentap/v1/events`) may fall behind before the gateway cuts its stream off
   * (it reconnects; events are not replayed), so a stalled reader cannot make the gateway buffer without bound
   */
  eventStreamMaxBufferBytes: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(4 * 1024 * 1024),
  /** what `POST /tokentap/v1/pause` does to new calls: hold them until resume, or reject them with 429 + Retry-After */
  pauseMode: z.enum(['hold', 'reject']).default('hold'),
  /** the base URL handed out in session URLs (e.g. behind a proxy); default: the address the request came to */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** pino level (the library logs only when asked: its `logger` option) */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` lines or `pino-pretty` text; default: pretty when stdout is a terminal, JSON otherwise */
  logFormat: z.enum(LOG_FORMATS).optional(),
});

/**
 * Every setting of the gateway, in one vocabulary: `backendUrl` = `--backend-url` = `TOKENTAP_BACKEND_URL`.
 * docs/config.md lists them (key | env | flag | default).
 */
export const gatewayConfigSchema = gatewaySettings.superRefine((config, context) => {
  // two answers to "where is the backend" are refused rather than one silently ignored (an unchanged default
  // backendUrl is no answer)
  if (config.backends.length > 0 && config.backendUrl !== DEFAULT_BACKEND_URL) {
    context.addIssue({
      code: 'custom',
      path: ['backends'],
      message: 'cannot be given with backendUrl (the one backend when no backends are listed): give one of the two',
    });
  }
});

/** A boolean from code, or from a flag or environment variable as text (`true`/`false`, `1`/`0`, `yes`/`no`). */
function booleanSetting() {
  return z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
    .transform((value) => value === true || value === 'true' || value === '1' || value === 'yes');
}

/** `"a, b"` -> `['a', 'b']`; lists pass as they are. */
function splitModelList(value: string | string[]): string[] {
  if (typeof value !== 'string') return value;
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
