import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { closedPort } from '../helpers/closed-port.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
/** util-linux `script` runs a command on a pseudo-terminal: `tokentap serve` then logs as on a terminal (pino-pretty). */
const SCRIPT = '/usr/bin/script';

const ADMIN_TOKEN = 'admin-token-secret-0123456789';
const BACKEND_KEY = 'backend-key-secret-0123456789';
const USERINFO_PASSWORD = 'userinfo-pass-0123456';
const HARNESS_KEY = 'sk-harness-secret-0123456789abcdef';

let sim: SimBackend;
let simUrl: string;
const temp = makeTempDir();
beforeAll(async () => {
  sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ times: 'forever', content: 'fine' }] } });
  simUrl = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  temp.remove();
});

interface Served {
  port: number;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * `tokentap serve` with every secret configured, its stdout captured: through a pseudo-terminal, or a pipe (JSON); at
 * debug, where each request's line (its URL) is logged.
 */
async function serve(onTerminal: boolean, name: string): Promise<Served> {
  const port = await closedPort();
  const pidFile = temp.file(`${name}.pid`);
  const backendUrl = simUrl.replace('http://', `http://tt-user:${USERINFO_PASSWORD}@`);
  const args = [
    CLI,
    'serve',
    '--port',
    String(port),
    '--db',
    temp.file(`${name}.db`),
    '--backend-url',
    backendUrl,
    '--backend-key',
    BACKEND_KEY,
    '--admin-token',
    ADMIN_TOKEN,
    '--log-level',
    'debug',
  ];
  // `exec` keeps the shell's pid for node, so the test signals the gateway itself, not `script`
  const command = `echo $$ > ${pidFile}; exec ${[process.execPath, ...args].map((arg) => `'${arg}'`).join(' ')}`;
  const child = onTerminal
    ? spawn(SCRIPT, ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH, TERM: 'dumb' }, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  // colours off: the secret must not hide between two escape codes
  // eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
  const output = (): string => chunks.join('').replace(/\x1b\[[0-9;]*m/g, '');
  await expect.poll(output, { timeout: 20_000 }).toContain('tokentap listening');
  return {
    port,
    output,
    async stop() {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGINT');
      expect(await exited).toBe(0);
    },
  };
}

/** Requests whose URL, headers or quoted input carry the admin token, a session key, the backend key or a harness key. */
async function sendSecrets(port: number): Promise<string> {
  const base = `http://127.0.0.1:${port}`;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  expect((await fetch(`${base}/tokentap/v1/state?token=${ADMIN_TOKEN}`, { headers: admin })).status).toBe(200);
  const created = await fetch(`${base}/tokentap/v1/sessions`, { method: 'POST', headers: admin, body: JSON.stringify({ id: 'keyed' }) });
  expect(created.status).toBe(201);
  const sessionKey = ((await created.json()) as { apiKey: string }).apiKey;
  const call = await fetch(`${base}/s/keyed/v1/chat/completions?api_key=${sessionKey}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sessionKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(call.status).toBe(200);
  await call.text();
  // the backend key as a session id in the path, and in a query
  expect((await fetch(`${base}/s/${BACKEND_KEY}/v1/models?key=${BACKEND_KEY}`)).status).toBe(200);
  // a harness key in a path, on no route
  expect((await fetch(`${base}/keys/${HARNESS_KEY}?token=${ADMIN_TOKEN}`)).status).toBe(404);
  // an error message that quotes its input: an invalid session header holding the session key
  const quoted = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-tokentap-session': `${sessionKey}/x`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(quoted.status).toBe(400);
  // a wrong admin token, which the gateway logs as a rejection
  expect((await fetch(`${base}/tokentap/v1/state?token=${ADMIN_TOKEN}x`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })).status).toBe(401);
  return sessionKey;
}

describe.each([
  { format: 'pretty (a terminal: pino-pretty on its own thread)', onTerminal: true },
  { format: 'JSON (a pipe)', onTerminal: false },
])('tokentap serve logs no secret, $format (issue 12)', ({ onTerminal }) => {
  it.skipIf(onTerminal && !existsSync(SCRIPT))(
    'after requests carrying every secret in URLs, headers and quoted input, and a backend URL with userinfo',
    async () => {
      const served = await serve(onTerminal, onTerminal ? 'pretty' : 'json');
      const sessionKey = await sendSecrets(served.port);
      await expect.poll(served.output, { timeout: 10_000 }).toContain('rollout API request rejected');
      await served.stop();
      const logged = served.output();
      // the requests were logged, in the format asked for
      expect(logged).toContain('/tokentap/v1/state?token=[Redacted]');
      expect(logged).toContain('http://[Redacted]@127.0.0.1');
      expect(logged).toMatch(onTerminal ? /DEBUG.*incoming request/ : /"level":20,.*"msg":"incoming request"/);
      expect(logged).toMatch(onTerminal ? /INFO.*call ended/ : /"level":30,.*"msg":"call ended"/);
      for (const secret of [ADMIN_TOKEN, BACKEND_KEY, USERINFO_PASSWORD, HARNESS_KEY, sessionKey]) expect(logged, secret).not.toContain(secret);
    },
    60_000,
  );
});
