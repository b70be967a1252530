import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSimBackend, DEFAULT_MODEL_NAME, type SimBackend } from '../../sim/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { closedPort } from '../helpers/closed-port.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const ADMIN_TOKEN = 'call-log-admin-token-0123456789';

let sim: SimBackend;
let simUrl: string;
const temp = makeTempDir();
beforeAll(async () => {
  sim = await createSimBackend({
    acceptAnyModel: true,
    script: {
      replies: [
        { match: { lastUserContains: 'hang' }, times: 'forever', fault: { kind: 'stall-headers' } },
        { times: 'forever', content: 'fine' },
      ],
    },
  });
  simUrl = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  temp.remove();
});

interface Served {
  base: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** `tokentap serve` in front of the simulator, its stdout (a pipe) captured. */
async function serve(name: string, extraArgs: string[]): Promise<Served> {
  const port = await closedPort();
  const args = [
    CLI,
    'serve',
    '--port',
    String(port),
    '--db',
    temp.file(`${name}.db`),
    '--backend-url',
    simUrl,
    '--admin-token',
    ADMIN_TOKEN,
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const output = (): string => chunks.join('');
  await expect.poll(output, { timeout: 20_000 }).toContain('tokentap listening');
  return {
    base: `http://127.0.0.1:${port}`,
    output,
    async stop() {
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    },
  };
}

const CHAT = { model: 'asked-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 };

/** Calls through two front doors (chat not streamed, Anthropic streamed, chat failed by the backend, chat aborted), requests that are no calls, a wrong path. */
async function sendTraffic(served: Served, callLines: () => number): Promise<void> {
  const { base } = served;
  const json = { 'content-type': 'application/json' };
  const chat = await fetch(`${base}/s/log-a/v1/chat/completions`, { method: 'POST', headers: json, body: JSON.stringify(CHAT) });
  expect(chat.status).toBe(200);
  await chat.text();
  const streamed = await fetch(`${base}/s/log-a/v1/messages`, {
    method: 'POST',
    headers: { ...json, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-ish', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(streamed.status).toBe(200);
  expect(await streamed.text()).toContain('message_stop');
  // more than the model's context: the backend refuses it (400), a recorded backend_error
  const failed = await fetch(`${base}/s/log-b/v1/chat/completions`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ ...CHAT, max_tokens: 10_000_000 }),
  });
  expect(failed.status).toBe(400);
  await failed.text();
  // the harness leaves while the backend has not answered: recorded aborted
  const controller = new AbortController();
  const generating = new Promise<void>((resolve) => sim.on('generation', () => resolve()));
  const hanging = fetch(`${base}/s/log-b/v1/chat/completions`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ ...CHAT, messages: [{ role: 'user', content: 'hang' }] }),
    signal: controller.signal,
  });
  await generating;
  controller.abort();
  await expect(hanging).rejects.toThrow();
  await expect.poll(callLines, { timeout: 10_000 }).toBe(4);
  // requests that are no model calls
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await fetch(`${base}/metrics`)).status).toBe(200);
  expect((await fetch(`${base}/s/log-a/v1/models`)).status).toBe(200);
  const state = await fetch(`${base}/tokentap/v1/state`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(state.status).toBe(200);
  await state.text();
  // a harness pointed at a wrong path: an error, so at info
  expect((await fetch(`${base}/s/log-a/v1/chat/completion`, { method: 'POST', headers: json, body: JSON.stringify(CHAT) })).status).toBe(404);
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('tokentap serve logs one info line per call, and nothing else per request at info (issue 14)', () => {
  it('--log-format json: four calls (two front doors, streamed, failed, aborted) are four call lines with their fields; no other per-request line at info', async () => {
    const served = await serve('json', ['--log-format', 'json']);
    const callLinesOf = (): Array<Record<string, unknown>> => jsonLines(served.output()).filter((line) => line.msg === 'call ended');
    await sendTraffic(served, () => callLinesOf().length);
    await served.stop();
    const lines = jsonLines(served.output());
    const calls = callLinesOf();
    expect(calls.map((line) => line.level)).toEqual([30, 30, 30, 30]);
    // the simulator answers any model name as the one it serves: the line shows both
    const bySession = (session: string) => calls.filter((line) => line.sessionId === session);
    expect(bySession('log-a')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          frontDoor: 'openai-chat',
          stream: false,
          model: 'asked-model',
          servedModel: DEFAULT_MODEL_NAME,
          status: 'ok',
          httpStatus: 200,
          tokenSource: 'backend',
          flags: [],
        }),
        expect.objectContaining({
          frontDoor: 'anthropic-messages',
          stream: true,
          model: 'claude-ish',
          servedModel: DEFAULT_MODEL_NAME,
          status: 'ok',
          tokenSource: 'backend',
        }),
      ]),
    );
    for (const line of bySession('log-a')) {
      expect(line).toMatchObject({
        callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        promptTokens: expect.any(Number),
        sampledTokens: expect.any(Number),
        timeToFirstTokenMs: expect.any(Number),
        totalMs: expect.any(Number),
      });
      expect(line.promptTokens as number).toBeGreaterThan(0);
      expect(line.sampledTokens as number).toBeGreaterThan(0);
      expect(line.errorCode).toBeUndefined();
    }
    expect(bySession('log-b')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          frontDoor: 'openai-chat',
          status: 'backend_error',
          httpStatus: 400,
          errorCode: 'TT_BACKEND_ERROR',
          promptTokens: null,
          sampledTokens: null,
          tokenSource: 'none',
        }),
        expect.objectContaining({ frontDoor: 'openai-chat', status: 'aborted', errorCode: 'TT_CLIENT_ABORTED', timeToFirstTokenMs: null }),
      ]),
    );
    // a request that failed and is no call: one line
    expect(lines.filter((line) => line.msg === 'request rejected')).toEqual([
      expect.objectContaining({ level: 30, code: 'TT_NOT_FOUND', message: 'No route for POST /s/log-a/v1/chat/completion' }),
    ]);
    // every other line at info or above is the gateway's own (start, shutdown), none about a request
    const others = lines.filter((line) => (line.level as number) >= 30 && line.msg !== 'call ended' && line.msg !== 'request rejected');
    for (const line of others) {
      expect(line, JSON.stringify(line)).not.toHaveProperty('reqId');
      expect(line, JSON.stringify(line)).not.toHaveProperty('req');
      expect(line, JSON.stringify(line)).not.toHaveProperty('res');
    }
    expect(others.map((line) => line.msg)).toEqual([
      // the start-up probe's word on the one backend (docs/backends.md), before the gateway listens
      'backend replica ready',
      expect.stringMatching(/^Server listening at /),
      expect.stringMatching(/^tokentap listening: /),
      'shutting down: no new calls, in-flight calls finish',
      'draining: new calls are refused, in-flight calls finish',
      'shut down: every call recorded, store closed',
    ]);
  }, 60_000);

  it('--log-level debug still has each request (incoming, completed) at debug, the call lines at info', async () => {
    const served = await serve('debug', ['--log-format', 'json', '--log-level', 'debug']);
    const chat = await fetch(`${served.base}/s/log-c/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CHAT),
    });
    await chat.text();
    expect((await fetch(`${served.base}/healthz`)).status).toBe(200);
    await served.stop();
    const lines = jsonLines(served.output());
    const requestLines = lines.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed');
    expect(requestLines.length).toBe(4);
    expect(requestLines.every((line) => line.level === 20)).toBe(true);
    expect(lines.filter((line) => line.msg === 'call ended')).toEqual([expect.objectContaining({ level: 30, sessionId: 'log-c', status: 'ok' })]);
  }, 60_000);

  it('--log-format pretty on a pipe: pino-pretty lines (no JSON, no colour codes), the call line among them', async () => {
    const served = await serve('pretty', ['--log-format', 'pretty']);
    const chat = await fetch(`${served.base}/s/log-d/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CHAT),
    });
    await chat.text();
    await expect.poll(served.output, { timeout: 10_000 }).toContain('call ended');
    await served.stop();
    const text = served.output();
    expect(text).not.toContain('\u001b[');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(\d+\): tokentap listening/m);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(\d+\): call ended\n\s+sessionId: "log-d"/m);
    expect(text.split('\n').some((line) => line.startsWith('{'))).toBe(false);
  }, 60_000);

  it('a bad --log-format is one line on stderr naming the flag, exit 2', () => {
    const result = spawnSync(process.execPath, [CLI, 'serve', '--log-format', 'xml', '--db', temp.file('bad.db')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--log-format');
    expect(result.stderr).toMatch(/json.*pretty/);
  });
});
