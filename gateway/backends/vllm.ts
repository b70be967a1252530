import { Pool } from 'undici';
import type { Readable } from 'node:stream';
import { mapBackendFailure } from '../errors/map-backend-failure.js';

export interface VllmBackendOptions {
  /** e.g. http://127.0.0.1:8000 (a trailing /v1 is accepted and dropped) */
  backendUrl: string;
  /** sent as `Authorization: Bearer` to the backend; never the harness's key */
  backendKey?: string | undefined;
  /** ms to wait for response headers (a non-streamed completion sends them only when done) */
  headersTimeoutMs: number;
  /** ms the body may stay silent between two chunks */
  bodyTimeoutMs: number;
  /** keep-alive connections to the backend */
  connections: number;
  /** ms to wait for a connection to the backend (undici's default, 10 s, when absent) */
  connectTimeoutMs?: number;
}

export interface BackendResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & AsyncIterable<Buffer>;
  /** wall clock (ms) when the headers arrived */
  headersAt: number;
}

export interface BackendClient {
  /** the backend's origin plus path prefix, for logs */
  readonly url: string;
  postJson(path: string, body: unknown, signal: AbortSignal): Promise<BackendResponse>;
  get(path: string, signal: AbortSignal): Promise<BackendResponse>;
  close(): Promise<void>;
}

/** Splits a backend URL into the pool's origin and a path prefix, dropping a trailing `/v1`. */
function parseBackendUrl(backendUrl: string): { origin: string; prefix: string } {
  const url = new URL(backendUrl);
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return { origin: url.origin, prefix };
}

/**
 * A keep-alive client for a vLLM (or any OpenAI-compatible) server. Only JSON requests the gateway built are
 * sent: no harness header travels upstream, so the harness's API key never reaches the backend.
 *
 * @example
 * const backend = createVllmBackend({ backendUrl: 'http://127.0.0.1:8000', headersTimeoutMs: 600_000, bodyTimeoutMs: 300_000, connections: 64 });
 * const response = await backend.postJson('/v1/chat/completions', body, controller.signal);
 */
export function createVllmBackend(options: VllmBackendOptions): BackendClient {
  const { origin, prefix } = parseBackendUrl(options.backendUrl);
  const pool = new Pool(origin, {
    connections: options.connections,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    keepAliveTimeout: 30_000,
    // every wait has a limit: connecting, the headers, each silence in the body
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
  });
  const baseHeaders: Record<string, string> = {};
  if (options.backendKey) baseHeaders.authorization = `Bearer ${options.backendKey}`;

  async function send(method: 'GET' | 'POST', path: string, body: string | undefined, signal: AbortSignal): Promise<BackendResponse> {
    const headers: Record<string, string> = { ...baseHeaders, accept: 'application/json, text/event-stream' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await pool.request({ method, path: prefix + path, headers, body, signal });
      return {
        statusCode: response.statusCode,
        headers: response.headers,
        body: response.body as unknown as Readable & AsyncIterable<Buffer>,
        headersAt: Date.now(),
      };
    } catch (error) {
      throw mapBackendFailure(error, { started: false });
    }
  }

  return {
    url: origin + prefix,
    postJson: (path, body, signal) => send('POST', path, JSON.stringify(body), signal),
    get: (path, signal) => send('GET', path, undefined, signal),
    close: () => pool.close(),
  };
}
