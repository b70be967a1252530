import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempWorkspace, sampleBeginInput, sampleFinishInput, type TempWorkspace } from '../../store/store-fixtures.js';
import { startWorkerRecorder } from './recorder-fixtures.js';

let workspace: TempWorkspace;
beforeEach(() => {
  workspace = createTempWorkspace();
});
afterEach(() => workspace.cleanup());

// issue 15: what the gateway records about the replica crosses to the recording thread (schema 6, protocol 4)
describe('the worker recorder writes the backend replica and weight version', () => {
  it("keeps begin's replica, takes a failover's from the finish, and the weight version the backend reported", async () => {
    const store = workspace.open();
    const recorder = startWorkerRecorder(workspace.databasePath);
    await recorder.ready();
    const stayed = recorder.begin(sampleBeginInput({ backendId: 'vllm-0' }));
    const moved = recorder.begin(sampleBeginInput({ backendId: 'sglang-0', policyVersion: 'step-12' }));
    await recorder.finish(stayed, sampleFinishInput());
    await recorder.finish(moved, sampleFinishInput({ backendId: 'sglang-1', weightVersion: 'step-11', flags: ['weight_version_mismatch'] }));
    await recorder.close();
    expect(store.listCalls('session-a').map((call) => [call.backendId, call.weightVersion, call.flags])).toEqual([
      ['vllm-0', null, []],
      ['sglang-1', 'step-11', ['weight_version_mismatch']],
    ]);
  });
});
