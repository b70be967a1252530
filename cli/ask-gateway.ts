import { UsageError } from './usage-error.js';

/** How long a command waits for a running gateway's answer before it says the gateway cannot be reached. */
export const GATEWAY_ANSWER_TIMEOUT_MS = 15_000;

/** A running gateway's admin API, as a command asks it: its base URL and the admin token. */
export interface GatewayAddress {
  /** e.g. http://127.0.0.1:4000 (a path prefix behind a proxy is kept) */
  url: string;
  adminToken: string | undefined;
}

/** The admin API refused (its `{"error":{"code","message"}}`), or the gateway failed: a 5xx is no user's mistake. */
export class GatewayRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayRefusal';
  }
}

/**
 * One request to a running gateway's rollout API (`/tokentap/v1` + `path`), answered as JSON. A gateway that cannot
 * be reached (refused, no such host, no answer in time) and an answer 4xx (no or wrong admin token, an unknown id) are
 * a UsageError (one line, exit code 2), saying what to check; a 5xx is a GatewayRefusal.
 *
 * @example const { backends } = await askGateway({ url: 'http://127.0.0.1:4000', adminToken }, 'GET', '/backends');
 */
export async function askGateway(address: GatewayAddress, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const url = `${address.url.replace(/\/+$/, '')}/tokentap/v1${path}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (address.adminToken !== undefined) headers.authorization = `Bearer ${address.adminToken}`;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, signal: AbortSignal.timeout(GATEWAY_ANSWER_TIMEOUT_MS) });
  } catch (error) {
    throw new UsageError(`cannot reach the gateway at ${address.url} (${reasonOf(error)}): is tokentap serve running there? (give --url)`);
  }
  const text = await response.text();
  const body = parseJson(text);
  if (response.ok && body !== undefined) return body;
  const refusal = errorOf(body) ?? `${text.slice(0, 200) || 'no body'}`;
  const message = `the gateway at ${address.url} answered ${response.status}: ${refusal}${hintFor(response.status, address)}`;
  if (response.status >= 500 || response.ok) throw new GatewayRefusal(response.status, message);
  throw new UsageError(message);
}

function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${GATEWAY_ANSWER_TIMEOUT_MS / 1000} s`;
  // fetch's own message is "fetch failed"; the socket's error is its cause (connect ECONNREFUSED 127.0.0.1:4000)
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `CODE: message` from the admin API's one error shape. */
function errorOf(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null | undefined)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
  return `${error.code}: ${error.message}`;
}

function hintFor(status: number, address: GatewayAddress): string {
  if (status === 401 && address.adminToken === undefined) return ' (give --admin-token, or set TOKENTAP_ADMIN_TOKEN)';
  return '';
}
