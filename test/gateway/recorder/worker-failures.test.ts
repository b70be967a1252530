import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { GatewayOptions } from '../../../gateway/create-gateway.js';
import { createTempWorkspace, sampleBeginInput, sampleFinishInput, type TempWorkspace } from '../../store/store-fixtures.js';
import { captureLogger, postChat, startWorkerRecorder } from './recorder-fixtures.js';

let setup: GatewayWithSim | undefined;
let workspace: TempWorkspace | undefined;

afterEach(async () => {
  await setup?.close();
  setup = undefined;
  workspace?.cleanup();
  workspace = undefined;
});

/**
 * Makes the database refuse a write, the way a full disk or a broken file would, from another connection: the
 * worker's own statements then fail inside its transaction (tests run as root, so a read-only file would not do).
 */
function refuseWrites(path: string, statement: 'INSERT' | 'UPDATE'): void {
  const database = new Database(path);
  database.exec(`CREATE TRIGGER refuse_writes BEFORE ${statement} ON calls BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
  database.close();
}

async function gatewayWithBrokenStore(
  statement: 'INSERT' | 'UPDATE',
  options: GatewayOptions = {},
): Promise<{ lines: Array<Record<string, unknown>> }> {
  const { logger, lines } = captureLogger();
  setup = await startGatewayWithSim({ fast: true }, { logger, ...options });
  expect(setup.gateway.recorder.health().mode).toBe('worker');
  refuseWrites(setup.gateway.config.db, statement);
  return { lines };
}

async function recordingCounters(): Promise<Record<string, unknown>> {
  const health = (await (await fetch(`${setup?.url}/healthz`)).json()) as { recording: Record<string, unknown> };
  return health.recording;
}

describe('refuse: a call the worker cannot commit is not completed', () => {
  it('answers 503 TT_RECORDING_FAILED instead of the body, counts and logs the failure, keeps the in_progress row', async () => {
    const { lines } = await gatewayWithBrokenStore('UPDATE');
    const answer = await postChat(setup!.url, 'refused');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'TT_RECORDING_FAILED' } });
    expect(setup!.gateway.store.listCalls('refused').map((call) => call.status)).toEqual(['in_progress']);
    expect(await recordingCounters()).toMatchObject({ callsStarted: 1, callsRecorded: 0, recordingFailures: 1 });
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'recording failed', stage: 'finish', err: expect.objectContaining({ message: 'disk says no' }) }),
    );
  });

  it('ends a stream with an error event instead of [DONE]', async () => {
    await gatewayWithBrokenStore('UPDATE');
    const answer = await postChat(setup!.url, 'refused-stream', { stream: true });
    expect(answer.status).toBe(200); // the stream had started
    expect(answer.text).toContain('TT_RECORDING_FAILED');
    expect(answer.text).not.toContain('data: [DONE]');
  });

  it('refuses a call whose in_progress row could not be written, and stores nothing for it', async () => {
    await gatewayWithBrokenStore('INSERT');
    const answer = await postChat(setup!.url, 'never-begun');
    expect(answer.status).toBe(503);
    expect(setup!.gateway.store.listCalls('never-begun')).toEqual([]);
    expect(await recordingCounters()).toMatchObject({ callsStarted: 1, callsRecorded: 0, recordingFailures: 2 });
  });
});

describe('serve: the harness gets its answer, the failure is counted', () => {
  it('answers 200 and counts the call that could not be recorded', async () => {
    await gatewayWithBrokenStore('UPDATE', { recordFailure: 'serve' });
    const answer = await postChat(setup!.url, 'served');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ object: 'chat.completion' });
    expect(await recordingCounters()).toMatchObject({ callsRecorded: 0, recordingFailures: 1 });
  });
});

describe('what crosses to the worker', () => {
  it('refuses token ids an Int32 cannot hold, as the store does on the gateway thread, and leaves typed arrays it was given usable', async () => {
    workspace = createTempWorkspace();
    const { logger, lines } = captureLogger();
    const recorder = startWorkerRecorder(workspace.databasePath, 'refuse', logger);
    const wide = recorder.begin(sampleBeginInput());
    await expect(recorder.finish(wide, sampleFinishInput({ promptTokenIds: [1, 2 ** 31] }))).rejects.toMatchObject({ code: 'TT_RECORDING_FAILED' });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'recording failed', err: expect.objectContaining({ code: 'STORE_INVALID_INPUT' }) }));
    const given = new Int32Array([151644, 872, 198]);
    const typed = recorder.begin(sampleBeginInput());
    await recorder.finish(typed, sampleFinishInput({ promptTokenIds: given }));
    expect(Array.from(given)).toEqual([151644, 872, 198]);
    await recorder.close();
    const store = workspace.open();
    expect(Array.from(store.getCall(typed)?.promptTokenIds ?? [])).toEqual([151644, 872, 198]);
    // its end can never be written: the call is marked incomplete, not left in progress (issue 12, item 5)
    expect(store.getCall(wide)?.status).toBe('incomplete');
  });
});
