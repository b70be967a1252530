import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../../gateway/create-gateway.js';
import { createTempWorkspace, sampleBeginInput, sampleFinishInput, type TempWorkspace } from '../../store/store-fixtures.js';
import { startWorkerRecorder } from './recorder-fixtures.js';

let workspace: TempWorkspace;

beforeEach(() => {
  workspace = createTempWorkspace();
});

afterEach(() => {
  workspace.cleanup();
});

describe('closing the worker recorder', () => {
  it('commits everything queued before it stops, and the thread exits', async () => {
    const recorder = startWorkerRecorder(workspace.databasePath);
    const callIds = Array.from({ length: 10 }, (_, index) => recorder.begin(sampleBeginInput({ sessionId: `closing-${index % 2}` })));
    // nothing awaited: every write is still queued on this thread when close() is called
    const finished = callIds.map((callId) => recorder.finish(callId, sampleFinishInput()));
    const thread = recorder.worker;
    const exited = new Promise<number>((resolve) => thread?.once('exit', resolve));
    await recorder.close();
    await Promise.all(finished);
    expect(await exited).toBe(0);
    expect(recorder.worker).toBeNull();
    expect(recorder.health()).toMatchObject({ healthy: true, worker: { state: 'closed', crashes: 0 } });
    const store = workspace.open();
    expect(callIds.map((callId) => store.getCall(callId)?.status)).toEqual(callIds.map(() => 'ok'));
  });

  it('fails writes that come after close instead of hanging them', async () => {
    const recorder = startWorkerRecorder(workspace.databasePath);
    await recorder.close();
    const callId = recorder.begin(sampleBeginInput());
    await expect(recorder.finish(callId, sampleFinishInput())).rejects.toMatchObject({ code: 'TT_RECORDING_FAILED' });
    expect(recorder.counters.recordingFailures).toBe(2);
  });
});

describe('the gateway with a recording worker', () => {
  it('marks calls an earlier run left in progress incomplete at start-up', async () => {
    const earlier = workspace.open();
    const { callId } = earlier.beginCall(sampleBeginInput({ sessionId: 'killed-run' }));
    const gateway = createGateway({ db: workspace.databasePath, logLevel: 'silent', port: 0 });
    try {
      expect(gateway.recorder.health().mode).toBe('worker');
      expect(gateway.store.getCall(callId)?.status).toBe('incomplete');
    } finally {
      await gateway.close();
    }
  });

  it('stops the worker on close', async () => {
    const gateway = createGateway({ db: workspace.databasePath, logLevel: 'silent', port: 0 });
    await gateway.listen();
    expect(gateway.recorder.health().worker?.state).toBe('running');
    await gateway.close();
    expect(gateway.recorder.health().worker?.state).toBe('closed');
  });
});
