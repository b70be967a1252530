import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { openStore } from '../../store/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { closedPort } from '../helpers/closed-port.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let temp: ReturnType<typeof makeTempDir>;
afterEach(() => temp?.remove());

describe("the tokentap command (built by npm test's pretest)", () => {
  it('prints help with exit 0, and exits 2 on an unknown command or bad flag', () => {
    expect(runCli(['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('serve') });
    for (const command of ['serve', 'sessions', 'show', 'sim-backend']) expect(runCli([command, '--help']).status).toBe(0);
    expect(runCli(['frobnicate'])).toMatchObject({ status: 2, stderr: expect.stringContaining('unknown command') });
    expect(runCli(['serve', '--port', 'abc']).status).toBe(2);
    expect(runCli(['serve', '--no-such-flag']).status).toBe(2);
  });

  it('lists sessions and shows a session from a database', () => {
    temp = makeTempDir();
    const db = temp.file('t.db');
    const store = openStore({ path: db });
    const { callId } = store.beginCall({
      sessionId: 'run-42',
      frontDoor: 'openai-chat',
      path: '/s/run-42/v1/chat/completions',
      requestedModel: 'm',
      backendModel: 'm',
      stream: false,
      requestBody: {},
      backendRequestBody: {},
      samplingParams: {},
      metadata: {},
      startedAt: Date.now(),
    });
    store.finishCall(callId, {
      status: 'ok',
      tokenSource: 'backend',
      promptTokenIds: [1, 2, 3],
      completionTokenIds: [4, 5],
      completionLogprobs: [-0.5, -0.25],
      finishReason: 'stop',
      stopReason: null,
      responseBody: {},
      usage: null,
      error: null,
      httpStatus: 200,
      flags: [],
      timeToFirstTokenMs: 5,
      totalMs: 9,
      endedAt: Date.now(),
    });
    store.close();
    const sessions = runCli(['sessions', '--db', db]);
    expect(sessions.status).toBe(0);
    expect(sessions.stdout).toMatch(/run-42\s+1\s+3\s+2\s+ok:1/);
    const show = runCli(['show', 'run-42'], { TOKENTAP_DB: db });
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/1\s+\w{8}\s+openai-chat\s+m\s+json\s+ok\s+backend\s+3\s+2\s+stop/);
    const json = runCli(['show', 'run-42', '--db', db, '--json']);
    expect(JSON.parse(json.stdout.trim())).toMatchObject({
      seq: 1,
      promptTokenIds: [1, 2, 3],
      completionTokenIds: [4, 5],
      completionLogprobs: [-0.5, -0.25],
    });
    expect(runCli(['show', 'nope', '--db', db]).status).toBe(2);
    expect(runCli(['sessions', '--db', temp.file('missing.db')]).status).toBe(2);
  });

  it('serves the rollout API with --admin-token, and --require-session-key refuses calls without a key', async () => {
    temp = makeTempDir();
    const port = await closedPort();
    const token = 'cli-admin-token-0123456789';
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--port',
        String(port),
        '--db',
        temp.file('s.db'),
        '--backend-url',
        'http://127.0.0.1:9',
        '--admin-token',
        token,
        '--require-session-key',
        '--pause-mode',
        'reject',
        '--session-idle-timeout-ms',
        '0',
      ],
      { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    for await (const line of lines) {
      expect(line).not.toContain(token);
      if (line.includes('tokentap listening')) break;
    }
    const state = await fetch(`http://127.0.0.1:${port}/tokentap/v1/state`, { headers: { authorization: `Bearer ${token}` } });
    expect(await state.json()).toMatchObject({ paused: false, pauseMode: 'reject' });
    const call = await fetch(`http://127.0.0.1:${port}/s/anything/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(call.status).toBe(401);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('serves until SIGTERM, then exits 0', async () => {
    temp = makeTempDir();
    const port = await closedPort();
    const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--db', temp.file('s.db'), '--backend-url', 'http://127.0.0.1:9'], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    for await (const line of lines) if (line.includes('tokentap listening')) break;
    // it serves, and says that its one backend (nothing listens on port 9) is down (issue 15: no longer 'ok')
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unhealthy', backends: { up: 0, down: 1 } });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
