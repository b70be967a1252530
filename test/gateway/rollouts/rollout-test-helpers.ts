import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { expect, onTestFinished } from 'vitest';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { GatewayOptions } from '../../../gateway/create-gateway.js';
import type { SimBackendOptions } from '../../../sim/index.js';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** An answer of the rollout API: status, parsed JSON and headers. */
export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * Calls the rollout API over real HTTP. `credential` goes out as `Authorization: Bearer`; null sends none;
 * a string `body` is sent as is (for bad JSON).
 */
export async function api<T = Record<string, unknown>>(
  setup: GatewayWithSim,
  method: string,
  path: string,
  options: { body?: unknown; credential?: string | null } = {},
): Promise<ApiAnswer<T>> {
  const credential = options.credential === undefined ? ADMIN_TOKEN : options.credential;
  const headers: Record<string, string> = credential === null ? {} : { authorization: `Bearer ${credential}` };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${setup.url}/tokentap/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as T, headers: response.headers };
}

/** The simulator and a gateway with an admin token (and whatever else the test needs). */
export function startRolloutGateway(simOptions: SimBackendOptions = {}, gatewayOptions: GatewayOptions = {}): Promise<GatewayWithSim> {
  return startGatewayWithSim(simOptions, { adminToken: ADMIN_TOKEN, ...gatewayOptions });
}

/** A one-message chat request body. */
export function chatBody(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content }], ...extra };
}

/** POST a chat completion with a credential (`Bearer`) to a base URL; returns status and JSON. */
export async function postChat(
  baseUrl: string,
  credential: string | null,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(credential === null ? {} : { authorization: `Bearer ${credential}` }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * An admin GET (`/tokentap/v1` + `path`) on a raw socket that stops reading once the 200 has begun, as a stalled
 * consumer would; the socket is destroyed when the test ends.
 */
export async function stalledAdminGet(setup: GatewayWithSim, path: string): Promise<Socket> {
  const { hostname, port } = new URL(setup.url);
  const socket = connect(Number(port), hostname);
  onTestFinished(() => void socket.destroy());
  await once(socket, 'connect');
  socket.write(`GET /tokentap/v1${path} HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`);
  const [first] = (await once(socket, 'data')) as [Buffer];
  expect(first.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
  socket.pause();
  return socket;
}
