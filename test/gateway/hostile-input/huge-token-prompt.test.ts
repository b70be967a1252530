import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createSimBackend, type SimBackend } from '../../../sim/index.js';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { MODEL } from './hostile-endpoints.js';
import { expectErrorShape } from './protocol-shapes.js';

const TOKENS = 10_000_000;

/**
 * The simulator behind a door that answers a body over 1 MiB the way vLLM answers a prompt past max_model_len,
 * without reading it as JSON: the test measures the gateway, not the simulator's parsing of 10M ids.
 */
async function startBackend(sim: SimBackend, simUrl: string): Promise<{ server: Server; url: string; bigBodies: number[] }> {
  const bigBodies: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 1024 * 1024) {
        bigBodies.push(body.length);
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: {
              message: `This model's maximum context length is 40960 tokens. However, your request has ${TOKENS} input tokens.`,
              type: 'BadRequestError',
              param: null,
              code: 400,
            },
          }),
        );
        return;
      }
      void fetch(`${simUrl}${request.url}`, {
        method: request.method,
        headers: { 'content-type': 'application/json' },
        ...(body.length > 0 ? { body } : {}),
      }).then(async (answer) => {
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  void sim;
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, bigBodies };
}

let sim: SimBackend;
let backend: Awaited<ReturnType<typeof startBackend>>;
let gateway: Gateway;
let url: string;
const temp = makeTempDir();
beforeAll(async () => {
  sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ times: 'forever', content: 'fine' }] } });
  backend = await startBackend(sim, await sim.listen());
  gateway = createGateway({ backendUrl: backend.url, db: temp.file('tokentap.db'), port: 0, logLevel: 'silent' });
  url = await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => backend.server.close(resolve));
  await sim.close();
  temp.remove();
});

it('passes a 10M-id prompt on /v1/completions to the backend, relays its context-length 400 in OpenAI shape, and keeps serving', async () => {
  const body = `{"model":"${MODEL}","max_tokens":2,"prompt":[${'7,'.repeat(TOKENS - 1)}7]}`;
  const response = await fetch(`${url}/s/huge/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(400);
  expect(expectErrorShape('openai', text)).toMatchObject({ error: { code: 'context_length_exceeded', type: 'invalid_request_error' } });
  expect(backend.bigBodies).toHaveLength(1);
  // a backend refusal is recorded, as every backend error is: one call, with the prompt exactly as sent
  const calls = gateway.store.listCalls('huge');
  expect(calls.map((call) => [call.status, call.httpStatus])).toEqual([['backend_error', 400]]);
  const stored = gateway.store.getCallBodies(calls[0]?.id ?? '')?.requestBody as { prompt: number[] };
  expect(stored.prompt).toHaveLength(TOKENS);

  const normal = await fetch(`${url}/s/after/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, prompt: 'hi', max_tokens: 4 }),
  });
  expect(normal.status, await normal.text()).toBe(200);
}, 180_000);
