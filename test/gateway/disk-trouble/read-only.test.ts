import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../store/index.js';
import type { Store } from '../../../store/types.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { captureLogger } from '../recorder/recorder-fixtures.js';
import { sampleValue } from '../metrics/metric-value.js';

/**
 * A database that turns read-only (a disk remounted read-only, a failing disk) while the gateway runs, played by
 * a store whose transactions fail with SQLite's own error until told otherwise (tests run as root, where a
 * chmod would not stop a write).
 */
let setup: GatewayWithSim | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
  cleanup?.();
});

function sqliteError(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: 'SqliteError', code });
}

async function startWithFaultyStore(recordFailure: 'serve' | 'refuse') {
  const temp = makeTempDir();
  const inner = openStore({ path: temp.file('tokentap.db') });
  let failure: Error | null = null;
  const store: Store = {
    ...inner,
    batch: (work) => {
      if (failure !== null) throw failure;
      return inner.batch(work);
    },
  };
  const { logger, lines } = captureLogger();
  setup = await startGatewayWithSim({ fast: true }, { store, recordFailure, logger });
  cleanup = () => {
    inner.close();
    temp.remove();
  };
  return {
    lines,
    fail: (error: Error | null) => {
      failure = error;
    },
  };
}

async function chat(session: string): Promise<Response> {
  return fetch(`${setup!.openaiBase(session)}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', max_tokens: 8, messages: [{ role: 'user', content: 'hello' }] }),
  });
}

async function health(): Promise<{ status: string; recording: Record<string, unknown> }> {
  return (await (await fetch(`${setup!.url}/healthz`)).json()) as { status: string; recording: Record<string, unknown> };
}

describe('a database that turns read-only', () => {
  it('serve: answers, reports degraded while writes fail, and ok again (logged) once they succeed', async () => {
    const { lines, fail } = await startWithFaultyStore('serve');
    expect((await chat('before')).status).toBe(200);
    fail(sqliteError('SQLITE_READONLY', 'attempt to write a readonly database'));
    expect((await chat('during')).status).toBe(200);
    expect((await chat('during')).status).toBe(200);
    expect(await health()).toMatchObject({
      status: 'degraded',
      recording: { failing: true, callsRecorded: 1, recordingFailures: 4, lastFailure: { code: 'SQLITE_READONLY', stage: 'finish' } },
    });
    fail(null);
    expect((await chat('after')).status).toBe(200);
    expect(await health()).toMatchObject({ status: 'ok', recording: { failing: false, callsRecorded: 2, lastFailure: { code: 'SQLITE_READONLY' } } });
    expect(setup!.gateway.store.listCalls('during')).toEqual([]);
    expect(setup!.gateway.store.listCalls('after').map((call) => call.status)).toEqual(['ok']);
    expect(lines.filter((line) => line.msg === 'recording failed')).toHaveLength(1);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'recording works again', failures: 4 }));
  });

  it("refuse: answers 503 TT_RECORDING_FAILED with SQLite's reason counted on /metrics", async () => {
    const { fail } = await startWithFaultyStore('refuse');
    fail(sqliteError('SQLITE_IOERR', 'disk I/O error'));
    const response = await chat('refused');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: 'TT_RECORDING_FAILED' } });
    const metrics = await (await fetch(`${setup!.url}/metrics`)).text();
    expect(sampleValue(metrics, 'tokentap_recording_failures_total')).toBe(2);
    expect(sampleValue(metrics, 'tokentap_errors_total', { front_door: 'openai-chat', code: 'TT_RECORDING_FAILED' })).toBe(1);
    expect((await health()).recording).toMatchObject({ lastFailure: { code: 'SQLITE_IOERR' } });
  });
});
