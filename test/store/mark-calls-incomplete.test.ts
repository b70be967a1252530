import { afterEach, describe, expect, it } from 'vitest';
import {
  createTempWorkspace,
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

    describe('markCallsIncomplete', () => {
      it('marks only the listed calls still in progress, and a marked call cannot be finished afterwards', () => {
        workspace = createTempWorkspace(engine);
        const store = workspace.open();
        const [stuck, finished, other] = ['stuck', 'finished', 'other'].map((callId) => store.beginCall({ ...sampleBeginInput(), callId }).callId);
        store.finishCall(finished!, sampleFinishInput());
        expect(store.markCallsIncomplete([stuck!, finished!, 'no-such-call'])).toBe(1);
        expect([stuck, finished, other].map((callId) => store.getCall(callId!)?.status)).toEqual(['incomplete', 'ok', 'in_progress']);
        expect(() => store.finishCall(stuck!, sampleFinishInput())).toThrow(/already finished/);
      });
    });
  });
}
