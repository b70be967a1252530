import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * A backend that answers an error status and then fails while its error body is read (it cuts the body, or holds
 * it while the harness leaves): every front door answers in its protocol's shape (or nobody is left), the call
 * reaches a final status with whatever error bytes arrived, and no row stays `in_progress` (issue 12).
 */
const MODEL = 'Qwen/Qwen3-8B';
// vLLM's error body, cut after these bytes (it announced 1000)
const PARTIAL = '{"object":"error","message":"engine de';

const FRONT_DOORS = [
  { frontDoor: 'openai-chat', path: '/v1/chat/completions', body: (text: string) => ({ model: MODEL, messages: [{ role: 'user', content: text }] }) },
  { frontDoor: 'openai-completions', path: '/v1/completions', body: (text: string) => ({ model: MODEL, prompt: text, max_tokens: 20 }) },
  { frontDoor: 'openai-responses', path: '/v1/responses', body: (text: string) => ({ model: MODEL, input: text }) },
  {
    frontDoor: 'anthropic-messages',
    path: '/v1/messages',
    body: (text: string) => ({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: text }] }),
  },
] as const;

type Door = (typeof FRONT_DOORS)[number];

let backend: Server;
let backendOrigin: string;
let gateway: Gateway;
let gatewayUrl: string;
/** a second gateway whose backend body timeout is short, for an error body that falls silent */
let quickGateway: Gateway;
let quickGatewayUrl: string;
const temp = makeTempDir();
/** the sockets of the backend's held answers, by the text of the prompt that asked for them */
const heldSockets = new Map<string, Socket>();

/** Answers 500 with `content-length: 1000` and a few bytes of JSON, then cuts the socket ('cut') or holds it ('hold'). */
function answer(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const held = /hold-[\w-]+/.exec(body)?.[0];
    if (request.method !== 'POST' || !(body.includes('cut-me') || held !== undefined)) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"object":"error","message":"not here"}');
      return;
    }
    response.writeHead(500, { 'content-type': 'application/json', 'content-length': '1000' });
    if (held !== undefined) {
      heldSockets.set(held, response.socket!);
      response.write(PARTIAL);
      return;
    }
    response.write(PARTIAL, () => response.socket?.destroy());
  });
}

beforeAll(async () => {
  backend = createServer(answer);
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const address = backend.address() as { port: number };
  backendOrigin = `http://127.0.0.1:${address.port}`;
  gateway = createGateway({ backendUrl: backendOrigin, db: temp.file('tokentap.db'), port: 0, logLevel: 'silent', backendRetries: 0 });
  gatewayUrl = await gateway.listen();
  quickGateway = createGateway({
    backendUrl: backendOrigin,
    db: temp.file('quick.db'),
    port: 0,
    logLevel: 'silent',
    backendRetries: 0,
    backendBodyTimeoutMs: 300,
  });
  quickGatewayUrl = await quickGateway.listen();
});

afterAll(async () => {
  await gateway.close();
  await quickGateway.close();
  backend.closeAllConnections();
  await new Promise<void>((resolve) => backend.close(() => resolve()));
  temp.remove();
});

function post(door: Door, session: string, text: string, stream: boolean, base = gatewayUrl): Promise<Response> {
  return fetch(`${base}/s/${session}${door.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...door.body(text), stream }),
  });
}

/**
 * The same call on a connection of its own, for a harness that leaves by closing it (node:http: after fetch aborts,
 * a connection of its pool that never carried a request stayed open, and the gateway's close waited for it until
 * its shutdown timeout).
 */
function postOnOwnConnection(door: Door, session: string, text: string, stream: boolean): ClientRequest {
  const url = new URL(`${gatewayUrl}/s/${session}${door.path}`);
  const request = httpRequest(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
  request.on('error', () => undefined); // the harness destroys it: the socket hang-up it reports is expected
  request.end(JSON.stringify({ ...door.body(text), stream }));
  return request;
}

/** The session's one call, once it left `in_progress` (the recorder writes on its own thread). */
async function onlyEndedCall(session: string, on = gateway) {
  await expect.poll(() => on.store.listCalls(session).map((call) => call.status)).toEqual([expect.not.stringMatching(/^in_progress$/)]);
  return on.store.listCalls(session)[0]!;
}

/** Resolves once undici in this process got the backend's answer headers: the gateway is then reading the body. */
function backendHeadersArrived(): Promise<void> {
  return new Promise((resolve) => {
    const onHeaders = (message: unknown): void => {
      if ((message as { request: { origin: string } }).request.origin !== backendOrigin) return;
      unsubscribe('undici:request:headers', onHeaders);
      resolve();
    };
    subscribe('undici:request:headers', onHeaders);
  });
}

/** The harness's answer: this status and code, in OpenAI's shape or Anthropic's. */
async function expectErrorAnswer(door: Door, response: Response, status: number, code: string): Promise<void> {
  expect(response.status).toBe(status);
  const body = await response.json();
  if (door.frontDoor === 'anthropic-messages')
    expect(body).toEqual({ type: 'error', error: { type: status === 504 ? 'timeout_error' : 'api_error', message: expect.any(String) } });
  else expect(body).toMatchObject({ error: { code, type: 'api_error', message: expect.any(String) } });
}

describe('a backend error body cut mid-way', () => {
  for (const door of FRONT_DOORS) {
    for (const stream of [false, true]) {
      it(`${door.frontDoor}${stream ? ' (streamed)' : ''}: 502 TT_BACKEND_STREAM_CUT in the protocol's shape, recorded backend_error with the bytes that came`, async () => {
        const session = `cut-${door.frontDoor}-${stream}`;
        await expectErrorAnswer(door, await post(door, session, 'cut-me', stream), 502, 'TT_BACKEND_STREAM_CUT');
        const call = await onlyEndedCall(session);
        expect(call).toMatchObject({
          status: 'backend_error',
          frontDoor: door.frontDoor,
          httpStatus: 500,
          error: { code: 'TT_BACKEND_STREAM_CUT', httpStatus: 502, body: PARTIAL },
        });
      });
    }
  }
});

describe('a backend error body that falls silent for backendBodyTimeoutMs', () => {
  for (const door of FRONT_DOORS) {
    for (const stream of [false, true]) {
      it(`${door.frontDoor}${stream ? ' (streamed)' : ''}: 504 TT_BACKEND_TIMEOUT in the protocol's shape, recorded backend_error with the bytes that came`, async () => {
        const session = `silent-${door.frontDoor}-${stream}`;
        await expectErrorAnswer(
          door,
          await post(door, session, `hold-silent-${door.frontDoor}-${stream}`, stream, quickGatewayUrl),
          504,
          'TT_BACKEND_TIMEOUT',
        );
        const call = await onlyEndedCall(session, quickGateway);
        expect(call).toMatchObject({
          status: 'backend_error',
          frontDoor: door.frontDoor,
          httpStatus: 500,
          error: { code: 'TT_BACKEND_TIMEOUT', httpStatus: 504, body: PARTIAL },
        });
      });
    }
  }
});

describe('a harness that leaves while the gateway reads a slow backend error body', () => {
  for (const door of FRONT_DOORS) {
    for (const stream of [false, true]) {
      it(`${door.frontDoor}${stream ? ' (streamed)' : ''}: recorded aborted with TT_CLIENT_ABORTED, the backend socket closed`, async () => {
        const session = `gone-${door.frontDoor}-${stream}`;
        const text = `hold-${door.frontDoor}-${stream}`;
        const headersArrived = backendHeadersArrived();
        const harness = postOnOwnConnection(door, session, text, stream);
        let answered = false;
        harness.on('response', () => (answered = true));
        await headersArrived;
        const socket = heldSockets.get(text)!;
        const socketClosed = new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
        harness.destroy();
        await socketClosed;
        const call = await onlyEndedCall(session);
        expect(call).toMatchObject({
          status: 'aborted',
          frontDoor: door.frontDoor,
          httpStatus: 500,
          error: { code: 'TT_CLIENT_ABORTED', httpStatus: 499, body: PARTIAL },
        });
        expect(answered).toBe(false);
      });
    }
  }
});
