import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createVllmBackend, type BackendClient } from '../../gateway/backends/vllm.js';
import { createBackendPromptRenderer } from '../../gateway/token-faithful/backend-prompt-renderer.js';
import { promptRequestFrom } from '../../gateway/token-faithful/prompt-renderer.js';

/** What a broken or foreign /tokenize might answer, one per request, in order. */
const answers: unknown[] = [];
let server: Server;
let backend: BackendClient;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answers.shift() ?? { tokens: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  backend = createVllmBackend({ backendUrl: `http://127.0.0.1:${port}`, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, connections: 1 });
});

afterAll(async () => {
  await backend.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const signal = new AbortController().signal;
const request = promptRequestFrom({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

it.each([
  ['a string', ['12', 13]],
  ['a fraction', [12, 13.5]],
  ['a negative id', [12, -1]],
  ['an id past Int32', [12, 2 ** 31]],
  ['null', [12, null]],
])('refuses a /tokenize answer holding %s, rather than sending or recording a made-up id', async (_name, tokens) => {
  answers.push({ tokens });
  await expect(createBackendPromptRenderer(backend).renderFull(request, signal)).rejects.toThrow(/not a token id/);
});

it('takes an answer of whole ids as they are', async () => {
  answers.push({ tokens: [0, 12, 151645] });
  await expect(createBackendPromptRenderer(backend).renderFull(request, signal)).resolves.toEqual([0, 12, 151645]);
});
