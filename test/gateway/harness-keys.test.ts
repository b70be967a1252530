import { afterEach, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A stand-in backend that only records the headers it receives and answers one fixed vLLM completion. */
async function startHeaderCapturingBackend(seen: IncomingHttpHeaders[]): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          prompt_token_ids: [1, 2],
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'ok' },
              logprobs: { content: [{ token: 'ok', logprob: -0.1 }] },
              finish_reason: 'stop',
              stop_reason: null,
              token_ids: [3],
            },
          ],
          usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}` };
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

it('never forwards or stores the harness API key; the backend gets only the configured key', async () => {
  const seen: IncomingHttpHeaders[] = [];
  const backend = await startHeaderCapturingBackend(seen);
  cleanup.push(() => new Promise((resolve) => backend.server.close(() => resolve())));
  const temp = makeTempDir();
  cleanup.push(() => temp.remove());
  const gateway: Gateway = createGateway({ backendUrl: backend.url, backendKey: 'backend-key-123', db: temp.file('t.db'), logLevel: 'silent' });
  cleanup.push(() => gateway.close());
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/s/keys/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-harness-secret', 'x-api-key': 'sk-ant-secret', cookie: 'c=secret' },
    payload: { messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(response.statusCode).toBe(200);
  expect(seen).toHaveLength(1);
  expect(seen[0]?.authorization).toBe('Bearer backend-key-123');
  expect(JSON.stringify(seen[0])).not.toContain('secret');
  const call = gateway.store.listCalls('keys')[0];
  expect(call?.status).toBe('ok');
  expect(JSON.stringify(call)).not.toContain('secret');
  expect(JSON.stringify(gateway.store.getCallBodies(call?.id ?? ''))).not.toContain('secret');
});
