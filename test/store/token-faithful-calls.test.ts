import { afterEach, describe, expect, it } from 'vitest';
import {
  createTempWorkspace,
  recordCall,
  sampleBeginInput,
  sampleFinishInput,
  type TempWorkspace,
  STORE_ENGINES,
  engineSuiteName,
  engineUnavailable,
} from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    let workspace: TempWorkspace | undefined;
    afterEach(() => {
      workspace?.cleanup();
      workspace = undefined;
    });

    const CHAT_REQUEST = { model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'hello' }] };

    describe('listTokenFaithfulCallIds', () => {
      it("lists a session's token-faithful calls that ended ok, newest first, at most the limit", () => {
        workspace = createTempWorkspace(engine);
        const store = workspace.open();
        const faithful = { chatRequestBody: CHAT_REQUEST };
        const first = recordCall(store, faithful);
        recordCall(store); // a plain call: no chat request beside a token-id prompt
        const second = recordCall(store, faithful);
        recordCall(store, faithful, { status: 'backend_error', error: { message: 'boom' } });
        recordCall(store, faithful, { status: 'aborted', error: { message: 'gone' } });
        const running = store.beginCall(sampleBeginInput(faithful)).callId;
        const third = recordCall(store, faithful);
        recordCall(store, { ...faithful, sessionId: 'session-b' });

        expect(store.listTokenFaithfulCallIds('session-a', 16)).toEqual([third, second, first]);
        expect(store.listTokenFaithfulCallIds('session-a', 2)).toEqual([third, second]);
        expect(store.listTokenFaithfulCallIds('session-a', 0)).toEqual([]);
        expect(store.listTokenFaithfulCallIds('nobody', 16)).toEqual([]);

        // the call in progress is listed once its end commits as ok, and only then
        store.finishCall(running, sampleFinishInput());
        expect(store.listTokenFaithfulCallIds('session-a', 1)).toEqual([third]);
        expect(store.listTokenFaithfulCallIds('session-a', 16)).toEqual([third, running, second, first]);
      });

      it('reads what another connection to the database committed', () => {
        workspace = createTempWorkspace(engine);
        const writer = workspace.open();
        const reader = workspace.open({ readonly: true });
        expect(reader.listTokenFaithfulCallIds('session-a', 16)).toEqual([]);
        const callId = recordCall(writer, { chatRequestBody: CHAT_REQUEST });
        expect(reader.listTokenFaithfulCallIds('session-a', 16)).toEqual([callId]);
      });
    });
  });
}
