import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../store/index.js';
import { createTempWorkspace, sampleBeginInput, sampleFinishInput, type TempWorkspace } from '../../store/store-fixtures.js';
import { startGatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { postChat, startWorkerRecorder } from './recorder-fixtures.js';

let workspace: TempWorkspace;
let store: Store;

beforeEach(() => {
  workspace = createTempWorkspace();
  store = workspace.open();
});

afterEach(() => {
  workspace.cleanup();
});

/** A fixed permutation, so a failure reproduces. */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  let seed = 7;
  for (let index = copy.length - 1; index > 0; index--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const other = seed % (index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

describe('the worker recorder keeps each session in acceptance order', () => {
  it('numbers calls by when they began, across interleaved sessions and ticks, whatever order they finish in', async () => {
    const recorder = startWorkerRecorder(workspace.databasePath);
    await recorder.ready();
    const begun: Array<{ sessionId: string; callId: string }> = [];
    for (let index = 0; index < 60; index++) {
      const sessionId = `session-${index % 3}`;
      begun.push({ sessionId, callId: recorder.begin(sampleBeginInput({ sessionId, startedAt: 1_700_000_000_000 + index })) });
      if (index % 7 === 0) await new Promise((resolve) => setImmediate(resolve)); // spread over several posts
    }
    await Promise.all(shuffled(begun).map(({ callId }) => recorder.finish(callId, sampleFinishInput())));
    for (const sessionId of ['session-0', 'session-1', 'session-2']) {
      const calls = store.listCalls(sessionId);
      expect(calls.map((call) => call.id)).toEqual(begun.filter((call) => call.sessionId === sessionId).map((call) => call.callId));
      expect(calls.map((call) => call.seq)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
      expect(calls.every((call) => call.status === 'ok')).toBe(true);
    }
    expect(recorder.counters).toMatchObject({ callsStarted: 60, callsRecorded: 60, recordingFailures: 0 });
    await recorder.close();
  });

  it('writes the in_progress row while the call runs, before its end is known', async () => {
    const recorder = startWorkerRecorder(workspace.databasePath);
    const callId = recorder.begin(sampleBeginInput({ sessionId: 'running' }));
    await expect.poll(() => store.getCall(callId)?.status).toBe('in_progress');
    await recorder.finish(callId, sampleFinishInput());
    expect(store.getCall(callId)?.status).toBe('ok');
    await recorder.close();
  });
});

describe('concurrent calls through the gateway', () => {
  it('records every call of two busy sessions once, numbered 1..n without gaps', async () => {
    const setup = await startGatewayWithSim({ fast: true });
    try {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, index) => postChat(setup.url, `busy-${index % 2}`, { stream: index % 3 === 0, content: `call ${index}` })),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      for (const session of ['busy-0', 'busy-1']) {
        const calls = setup.gateway.store.listCalls(session);
        expect(calls.map((call) => call.seq)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
        expect(calls.every((call) => call.status === 'ok')).toBe(true);
      }
      const stored = new Set(['busy-0', 'busy-1'].flatMap((session) => setup.gateway.store.listCalls(session).map((call) => call.id)));
      expect(answers.every((answer) => answer.callId !== null && stored.has(answer.callId))).toBe(true);
    } finally {
      await setup.close();
    }
  });
});
