import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import Database from 'better-sqlite3';
import { createSimBackend, type SimBackend } from '../../../sim/index.js';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { BODY_ENDPOINTS, MODEL, methodOf } from './hostile-endpoints.js';

const ADMIN_TOKEN = 'admin-token-for-utf8-tests-0123456';

/**
 * The simulator behind a door that puts lone surrogate escapes into what it answers, JSON and SSE alike, as a
 * Python backend does for a str holding one (`json.dumps` writes `"\udc80"`): in finish_reason, in stop_reason
 * (vLLM's matched stop string) and in the text.
 */
async function startSurrogateBackend(simUrl: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      void fetch(`${simUrl}${request.url}`, {
        method: request.method,
        headers: { 'content-type': 'application/json' },
        ...(body.length > 0 ? { body } : {}),
      }).then(async (answer) => {
        const text = (await answer.text())
          .replace(/"finish_reason":\s*"stop"/g, '"finish_reason":"stop\\udc00"')
          .replace(/"stop_reason":\s*null/g, '"stop_reason":"\\ud800x"')
          .replace(/fine/g, 'fi\\udfffne');
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/** Every value of every TEXT column of every table of the SQLite file, as the bytes SQLite holds. */
function textCells(file: string): Array<{ where: string; bytes: Buffer }> {
  const database = new Database(file, { readonly: true });
  try {
    const cells: Array<{ where: string; bytes: Buffer }> = [];
    const tables = database.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all();
    for (const { name: table } of tables) {
      const columns = database.prepare<[], { name: string; type: string }>(`SELECT name, type FROM pragma_table_info('${table}')`).all();
      for (const { name: column } of columns) {
        // a STRICT table's TEXT columns, and any text a looser column holds
        const rows = database
          .prepare<[], { bytes: Buffer }>(`SELECT CAST("${column}" AS BLOB) AS bytes FROM "${table}" WHERE typeof("${column}") = 'text'`)
          .all();
        for (const row of rows) cells.push({ where: `${table}.${column}`, bytes: row.bytes });
      }
    }
    return cells;
  } finally {
    database.close();
  }
}

let sim: SimBackend;
let backend: Awaited<ReturnType<typeof startSurrogateBackend>>;
let gateway: Gateway;
let url: string;
const temp = makeTempDir();
const file = temp.file('tokentap.db');
beforeAll(async () => {
  sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ times: 'forever', content: 'fine' }] } });
  backend = await startSurrogateBackend(await sim.listen());
  gateway = createGateway({ backendUrl: backend.url, db: file, port: 0, logLevel: 'silent', adminToken: ADMIN_TOKEN });
  url = await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => backend.server.close(resolve));
  await sim.close();
  temp.remove();
});

async function post(path: string, body: string, method = 'POST', credential = ADMIN_TOKEN): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path.replace('SESSION', 'utf8-target')}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
    body,
  });
  return { status: response.status, text: await response.text() };
}

describe('no text column of the SQLite file ever holds bytes that are not UTF-8 (issue 12)', () => {
  it('after lone surrogates from clients (refused), from the library API and from a backend (replaced by U+FFFD, flagged)', async () => {
    await gateway.createSession({ id: 'utf8-target' });
    // clients: every route, the surrogate in a value and in a key
    for (const endpoint of BODY_ENDPOINTS) {
      for (const body of [
        JSON.stringify({ ...endpoint.valid, model: 'claude-\udc00-sonnet' }),
        JSON.stringify({ ...endpoint.valid, version: 'step-\ud800', task: { ['k\udfff']: 1 }, metadata: { a: 'b\udc00' } }),
      ]) {
        const { status, text } = await post(endpoint.path, body, methodOf(endpoint));
        expect(status, `${endpoint.name}: ${text.slice(0, 200)}`).toBe(400);
      }
    }
    // the library API skips the HTTP parser: the store repairs what it writes
    await gateway.setPolicyVersion('step-\udc00');
    const library = await gateway.createSession({ id: 'utf8-library', task: { note: 'a\ud800' }, tags: ['t\udc00'] });
    // a backend's lone surrogates, non-streamed and streamed, on each kind of front door
    const calls: Array<[string, Record<string, unknown>]> = [
      ['/s/utf8-backend/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }],
      ['/s/utf8-backend/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true }],
      ['/s/utf8-backend/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 4 }],
      ['/s/utf8-backend/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 4, stream: true }],
      ['/s/utf8-backend/v1/messages', { model: MODEL, max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }],
      ['/s/utf8-backend/v1/messages', { model: MODEL, max_tokens: 4, messages: [{ role: 'user', content: 'hi' }], stream: true }],
      ['/s/utf8-backend/v1/responses', { model: MODEL, input: 'hi', max_output_tokens: 4, stream: true }],
      ['/s/utf8-library/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }],
    ];
    for (const [path, body] of calls) {
      const { status, text } = await post(path, JSON.stringify(body), 'POST', path.includes('utf8-library') ? library.apiKey : ADMIN_TOKEN);
      expect(status, `${path}: ${text.slice(0, 300)}`).toBe(200);
    }

    const recorded = gateway.store.listCalls('utf8-backend');
    expect(recorded.map((call) => call.status)).toEqual(calls.slice(0, -1).map(() => 'ok'));
    for (const call of recorded) {
      expect(call.flags, call.path).toContain('backend_text_not_unicode');
      expect(call.finishReason, call.path).toBe('stop\ufffd');
      expect(call.stopReason, call.path).toBe('\ufffdx');
    }
    // the bodies keep what the backend sent: the escape, read back as the very code unit
    const firstBody = gateway.store.getCallBodies(recorded[0]?.id ?? '')?.responseBody as { choices: Array<{ message: { content: string } }> };
    expect(firstBody.choices[0]?.message.content).toBe('fi\udfffne');
    expect(gateway.store.listCalls('utf8-library')[0]?.policyVersion).toBe('step-\ufffd');

    const cells = textCells(file);
    expect(cells.length).toBeGreaterThan(100);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const bad = cells.filter(({ bytes }) => {
      try {
        decoder.decode(bytes);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad.map(({ where, bytes }) => `${where}: ${bytes.toString('hex')}`)).toEqual([]);
  }, 60_000);
});
