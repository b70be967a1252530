import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { WorkerCallRecorder } from '../../../gateway/recorder/worker-call-recorder.js';
import { DEFAULT_MAX_WORKER_CRASHES } from '../../../gateway/recorder/worker-call-recorder.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
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
 * Holds the database's write lock from another connection, so the worker blocks inside its next transaction
 * (SQLite's busy wait): whatever it was sent stays unconfirmed until the lock is released.
 */
function holdWriteLock(path: string): { release: () => void } {
  const database = new Database(path);
  database.exec('BEGIN IMMEDIATE');
  return {
    release() {
      database.exec('ROLLBACK');
      database.close();
    },
  };
}

/** Stops the worker while it is blocked, then lets it run into the stop: it dies before committing anything. */
async function crashBlockedWorker(recorder: WorkerCallRecorder, lock: { release: () => void }): Promise<void> {
  const stopped = recorder.worker?.terminate();
  lock.release();
  await stopped;
}

function recorderOf(gateway: GatewayWithSim): WorkerCallRecorder {
  const { recorder } = gateway.gateway;
  if (!(recorder instanceof WorkerCallRecorder)) throw new Error('the gateway does not record on a worker');
  return recorder;
}

async function health(url: string): Promise<{ code: number; body: { status: string; recording: Record<string, unknown> } }> {
  const response = await fetch(`${url}/healthz`);
  return { code: response.status, body: (await response.json()) as { status: string; recording: Record<string, unknown> } };
}

describe('a recording thread that dies', () => {
  it('fails the finishes it had not confirmed instead of leaving them hanging, then records on a new thread', async () => {
    workspace = createTempWorkspace();
    const recorder = startWorkerRecorder(workspace.databasePath);
    await recorder.ready();
    const lock = holdWriteLock(workspace.databasePath);
    const callId = recorder.begin(sampleBeginInput());
    const finished = recorder.finish(callId, sampleFinishInput());
    await new Promise((resolve) => setImmediate(resolve)); // both writes are posted to the blocked worker
    await crashBlockedWorker(recorder, lock);
    await expect(finished).rejects.toMatchObject({ code: 'TT_RECORDING_FAILED' });
    expect(recorder.health()).toMatchObject({ healthy: true, worker: { crashes: 1, restarts: 1 } });
    expect(recorder.counters).toMatchObject({ callsRecorded: 0, recordingFailures: 2 });

    const next = recorder.begin(sampleBeginInput());
    await recorder.finish(next, sampleFinishInput());
    const store = workspace.open();
    expect(store.getCall(next)?.status).toBe('ok');
    expect(store.getCall(callId)).toBeNull(); // the dead thread committed nothing
    await recorder.close();
  });

  it('the next thread marks incomplete the calls whose end the dead one held, once the store takes writes again', async () => {
    workspace = createTempWorkspace();
    const { logger, lines } = captureLogger();
    const recorder = startWorkerRecorder(workspace.databasePath, 'refuse', logger);
    await recorder.ready();
    const recorded = recorder.begin(sampleBeginInput({ sessionId: 'before' }));
    await recorder.finish(recorded, sampleFinishInput());
    // the store refuses every update of a call: ends fail, and their mark too
    const database = new Database(workspace.databasePath);
    database.exec(`CREATE TRIGGER refuse_updates BEFORE UPDATE ON calls BEGIN SELECT RAISE(ABORT, 'disk says no'); END`);
    const callId = recorder.begin(sampleBeginInput({ sessionId: 'held' }));
    await expect(recorder.finish(callId, sampleFinishInput())).rejects.toMatchObject({ code: 'TT_RECORDING_FAILED' });
    await expect.poll(() => recorder.health().endsWaiting).toBe(1);

    await recorder.worker?.terminate();
    await recorder.ready();
    await expect.poll(() => recorder.health().worker?.state).toBe('running');
    // the new thread holds the mark while the store still refuses it
    expect(recorder.health()).toMatchObject({ endsWaiting: 1, worker: { crashes: 1, restarts: 1 } });
    const store = workspace.open();
    expect(store.getCall(callId)?.status).toBe('in_progress');
    database.exec('DROP TRIGGER refuse_updates');
    database.close();
    await expect.poll(() => store.getCall(callId)?.status, { timeout: 10_000 }).toBe('incomplete');
    expect(store.getCall(recorded)?.status).toBe('ok'); // a call no longer in progress is left as it is
    await expect.poll(() => recorder.health().endsWaiting).toBe(0);
    expect(recorder.counters.callsMarkedIncomplete).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'calls whose end the stopped recording thread may have held are marked incomplete', calls: 1 }),
    );
    await recorder.close();
  });

  it('answers the harness with TT_RECORDING_FAILED, reports the crash on /healthz, and serves the next call recorded', async () => {
    const { logger, lines } = captureLogger();
    setup = await startGatewayWithSim({ fast: true }, { logger });
    const recorder = recorderOf(setup);
    const lock = holdWriteLock(setup.gateway.config.db);
    const pending = postChat(setup.url, 'crash');
    await expect.poll(() => setup?.sim.log.length).toBe(1); // the call is at the backend: its row went to the blocked worker
    await crashBlockedWorker(recorder, lock);
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'TT_RECORDING_FAILED' } });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'the recording thread stopped' }));

    const afterCrash = await health(setup.url);
    expect(afterCrash.code).toBe(200);
    expect(afterCrash.body.recording).toMatchObject({
      mode: 'worker',
      worker: { crashes: 1, restarts: 1, lastCrash: expect.objectContaining({ message: expect.stringContaining('exited') }) },
    });
    expect((await postChat(setup.url, 'after-crash')).status).toBe(200);
    expect(setup.gateway.store.listCalls('after-crash').map((call) => call.status)).toEqual(['ok']);
  });

  it('gives up at once on a thread that cannot open the store: ready() rejects and writes fail without hanging', async () => {
    const recorder = startWorkerRecorder('/nonexistent-dir/tokentap.db');
    await expect(recorder.ready()).rejects.toThrow(/the folder \/nonexistent-dir does not exist/);
    expect(recorder.health()).toMatchObject({ healthy: false, worker: { state: 'failed', restarts: 0 } });
    const callId = recorder.begin(sampleBeginInput());
    await expect(recorder.finish(callId, sampleFinishInput())).rejects.toMatchObject({ code: 'TT_RECORDING_FAILED' });
    await recorder.close();
  });

  it(`gives up after more than ${DEFAULT_MAX_WORKER_CRASHES} crashes in a minute: /healthz answers 503 and calls are refused, not hung`, async () => {
    setup = await startGatewayWithSim({ fast: true });
    const recorder = recorderOf(setup);
    for (let crash = 1; crash <= DEFAULT_MAX_WORKER_CRASHES + 1; crash++) {
      await recorder.ready();
      await expect.poll(() => recorder.health().worker?.state).toBe('running');
      await recorder.worker?.terminate();
    }
    const down = await health(setup.url);
    expect(down.code).toBe(503);
    expect(down.body).toMatchObject({ status: 'unhealthy', recording: { worker: { state: 'failed', crashes: DEFAULT_MAX_WORKER_CRASHES + 1 } } });
    const answer = await postChat(setup.url, 'no-recorder');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'TT_RECORDING_FAILED' } });
  });
});
