import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayOptions } from '../../../gateway/create-gateway.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { captureLogger } from '../recorder/recorder-fixtures.js';
import { sampleValue } from '../metrics/metric-value.js';

/**
 * A real full disk: `dbMaxBytes` caps the database at its size after migration (SQLite's max_page_count on the
 * writing connection), so a call whose request needs new pages fails with SQLITE_FULL, on the recording worker
 * or on the gateway's thread alike.
 */
let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function startFull(options: GatewayOptions): Promise<Array<Record<string, unknown>>> {
  const { logger, lines } = captureLogger();
  setup = await startGatewayWithSim({ fast: true }, { dbMaxBytes: 1, logger, ...options });
  return lines;
}

/** Text no compression shrinks, so the stored request needs pages past the cap (8 KiB of random hex). */
function incompressible(): string {
  return randomBytes(4096).toString('hex');
}

function post(path: string, session: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${setup!.url}/s/${session}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const chat = (stream = false) => ({ model: 'Qwen/Qwen3-8B', max_tokens: 8, stream, messages: [{ role: 'user', content: incompressible() }] });
const messages = () => ({ model: 'claude-x', max_tokens: 8, messages: [{ role: 'user', content: incompressible() }] });

async function health(): Promise<{ status: string; recording: Record<string, unknown> }> {
  const response = await fetch(`${setup!.url}/healthz`);
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; recording: Record<string, unknown> };
}

for (const recordInWorker of [true, false]) {
  describe(`a full database, recording ${recordInWorker ? 'on the worker' : 'on the gateway thread'}`, () => {
    it('serve: answers every call, counts and reports the failures (healthz degraded, metrics), logs once per burst', async () => {
      const lines = await startFull({ recordInWorker, recordFailure: 'serve' });
      expect(setup!.gateway.recorder.health().mode).toBe(recordInWorker ? 'worker' : 'thread');
      for (let call = 0; call < 3; call++) {
        const response = await post('/chat/completions', 'full', chat());
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ object: 'chat.completion' });
      }
      const report = await health();
      expect(report).toMatchObject({ status: 'degraded', recording: { failing: true, callsRecorded: 0, lastFailure: { code: 'SQLITE_FULL' } } });
      expect(report.recording.recordingFailures).toBeGreaterThanOrEqual(3);
      const metrics = await (await fetch(`${setup!.url}/metrics`)).text();
      expect(sampleValue(metrics, 'tokentap_recording_failures_total')).toBe(report.recording.recordingFailures);
      expect(sampleValue(metrics, 'tokentap_recording_failing')).toBe(1);
      const logged = lines.filter((line) => line.msg === 'recording failed');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 50, err: expect.objectContaining({ code: 'SQLITE_FULL' }) });
    });

    it("refuse: answers 503 TT_RECORDING_FAILED in each protocol's shape, and ends a stream with an error event", async () => {
      await startFull({ recordInWorker, recordFailure: 'refuse' });
      const openai = await post('/chat/completions', 'refused', chat());
      expect(openai.status).toBe(503);
      expect(await openai.json()).toMatchObject({ error: { code: 'TT_RECORDING_FAILED', type: 'api_error' } });
      const anthropic = await post('/messages', 'refused', messages());
      expect(anthropic.status).toBe(503);
      expect(await anthropic.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'The call could not be recorded' } });
      const stream = await (await post('/chat/completions', 'refused', chat(true))).text();
      expect(stream).toContain('TT_RECORDING_FAILED');
      expect(stream).not.toContain('[DONE]');
      expect(setup!.gateway.store.listCalls('refused')).toEqual([]);
      expect((await health()).status).toBe('degraded');
    });
  });
}
