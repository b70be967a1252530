import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../../../gateway/create-gateway.js';
import { gatewayConfigSchema } from '../../../gateway/config/gateway-config.js';
import { recordWorkerUrl } from '../../../gateway/recorder/record-worker-url.js';
import type { CallStatus } from '../../../store/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

let setup: GatewayWithSim;

beforeEach(async () => {
  setup = await startGatewayWithSim({ fast: true });
});

afterEach(async () => {
  await setup.close();
});

/**
 * Sends a chat call over a raw socket and reads the session's calls from the store at two instants: when the
 * chunk holding `data: [DONE]` arrives (streams), and synchronously in the response's `end` handler.
 */
function callAndReadAtEnd(session: string, stream: boolean): Promise<{ status: number; atDone: CallStatus[] | null; atEnd: CallStatus[] }> {
  const url = new URL(`${setup.openaiBase(session)}/chat/completions`);
  const statuses = (): CallStatus[] => setup.gateway.store.listCalls(session).map((call) => call.status);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      let atDone: CallStatus[] | null = null;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (atDone === null && chunk.includes('data: [DONE]')) atDone = statuses();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, atDone, atEnd: statuses() }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify({ model: 'Qwen/Qwen3-8B', stream, max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }));
  });
}

describe('recording on a worker thread', () => {
  it('runs the compiled worker under vitest (the sources are TypeScript; the worker is dist/)', () => {
    expect(setup.gateway.recorder.health()).toMatchObject({ healthy: true, mode: 'worker', worker: { state: 'running', crashes: 0 } });
    const fromSources = recordWorkerUrl(new URL('../../../gateway/recorder/record-worker-url.ts', import.meta.url).href);
    expect(fromSources === null ? null : fileURLToPath(fromSources)).toBe(
      fileURLToPath(new URL('../../../dist/gateway/recorder/record-worker.js', import.meta.url)),
    );
    expect(recordWorkerUrl('file:///nowhere/gateway/recorder/record-worker-url.js')).toBeNull();
  });

  it('commits a non-streamed call before its last byte: the store says ok the instant the response ends', async () => {
    for (let turn = 1; turn <= 5; turn++) {
      const { status, atEnd } = await callAndReadAtEnd('json-end', false);
      expect(status).toBe(200);
      expect(atEnd).toEqual(Array.from({ length: turn }, () => 'ok'));
    }
  });

  it('commits a streamed call before [DONE] reaches the harness', async () => {
    for (let turn = 1; turn <= 5; turn++) {
      const { status, atDone, atEnd } = await callAndReadAtEnd('stream-end', true);
      expect(status).toBe(200);
      expect(atDone).toEqual(Array.from({ length: turn }, () => 'ok'));
      expect(atEnd).toEqual(atDone);
    }
  });

  it('counts what it recorded on /healthz', async () => {
    await callAndReadAtEnd('counted', false);
    await callAndReadAtEnd('counted', true);
    const health = (await (await fetch(`${setup.url}/healthz`)).json()) as { status: string; recording: Record<string, unknown> };
    expect(health.status).toBe('ok');
    expect(health.recording).toMatchObject({ callsStarted: 2, callsRecorded: 2, recordingFailures: 0, mode: 'worker' });
  });
});

describe('where the store is written', () => {
  it('stays on the gateway thread with recordInWorker false (flag and env spell it as text), a store passed in, or :memory:', async () => {
    expect(gatewayConfigSchema.parse({ recordInWorker: 'false' }).recordInWorker).toBe(false);
    expect(gatewayConfigSchema.parse({}).recordInWorker).toBe(true);
    const temp = makeTempDir();
    const gateways = [
      createGateway({ db: temp.file('off.db'), logLevel: 'silent', recordInWorker: false }),
      createGateway({ db: ':memory:', logLevel: 'silent' }),
      createGateway({ store: setup.gateway.store, logLevel: 'silent' }),
    ];
    try {
      expect(gateways.map((gateway) => gateway.recorder.health().mode)).toEqual(['thread', 'thread', 'thread']);
    } finally {
      for (const gateway of gateways) await gateway.close();
      temp.remove();
    }
  });
});
