import { z } from 'zod';

/**
 * Every setting of the gateway, in one vocabulary: `backendUrl` = `--backend-url` = `TOKENTAP_BACKEND_URL`.
 * docs/config.md lists them (key | env | flag | default).
 */
export const gatewayConfigSchema = z.strictObject({
  /** the inference backend (vLLM or any OpenAI-compatible server); a trailing /v1 is accepted */
  backendUrl: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8000'),
  /** API key tokentap sends to the backend; the harness's own key is never forwarded */
  backendKey: z.string().min(1).optional(),
  /** SQLite database file; ':memory:' keeps nothing */
  db: z.string().min(1).default('./tokentap.db'),
  /** port to listen on (0 picks a free one) */
  port: z.coerce.number().int().min(0).max(65535).default(4000),
  /** address to bind; loopback unless told otherwise */
  host: z.string().min(1).default('127.0.0.1'),
  /** largest request body in bytes (Claude Code contexts exceed fastify's 1 MiB default) */
  bodyLimit: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /** model name sent to the backend, whatever the harness asks for (its own name is recorded) */
  model: z.string().min(1).optional(),
  /** top_logprobs recorded on every call (0: only the sampled token's logprob) */
  topLogprobs: z.coerce.number().int().min(0).max(20).default(0),
  /** ms to wait for the backend's response headers (a non-streamed completion answers only when done) */
  backendHeadersTimeoutMs: z.coerce.number().int().positive().default(600_000),
  /** ms the backend's body may stay silent between two chunks */
  backendBodyTimeoutMs: z.coerce.number().int().positive().default(300_000),
  /** keep-alive connections to the backend */
  backendConnections: z.coerce.number().int().positive().default(256),
  /** what to do when a call cannot be written to the store: refuse it (503) or serve it unrecorded (counted, logged) */
  recordFailure: z.enum(['refuse', 'serve']).default('refuse'),
  /**
   * models served token-in-token-out (docs/token-faithful.md): a list of model names (the harness's or the
   * one sent to the backend), `*` for all; a comma-separated string is accepted (flag and env). Empty: off.
   */
  tokenFaithful: z.union([z.string(), z.array(z.string().min(1))]).transform(splitModelList).default([]),
  /** a Hugging Face model folder (tokenizer.json, tokenizer_config.json or chat_template.jinja) that token-faithful
   * mode renders prompts with; without it the backend's /tokenize renders them */
  modelDir: z.string().min(1).optional(),
  /** how token-faithful mode splits reasoning from the completion text (vLLM's --reasoning-parser) */
  reasoningParser: z.enum(['qwen3', 'none']).default('qwen3'),
  /** how token-faithful mode reads tool calls from the completion text (vLLM's --tool-call-parser) */
  toolCallParser: z.enum(['hermes', 'qwen3-coder', 'none']).default('hermes'),
  /** pino level */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** `"a, b"` -> `['a', 'b']`; lists pass as they are. */
function splitModelList(value: string | string[]): string[] {
  if (typeof value !== 'string') return value;
  return value.split(',').map((name) => name.trim()).filter((name) => name !== '');
}

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
