import { describe, expect, it } from 'vitest';
import type { GatewayInstanceRow } from '../../store/types.js';
import { sampleBeginInput, sampleFinishInput, STORE_ENGINES, engineSuiteName, engineUnavailable, workspaceForEachTest } from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    const instance = (id: string): GatewayInstanceRow => ({
      id,
      host: 'h',
      pid: 1,
      processScope: 'scope',
      processStart: '1',
      startedAt: 1,
      seenAt: 1,
    });

    describe('gateway instances and the recovery of their calls', () => {
      it('marks incomplete only the in-progress calls of gone or unknown gateways, and forgets the gone ones', () => {
        const store = workspace.open();
        store.registerInstance(instance('live'));
        store.registerInstance(instance('dead'));
        store.registerInstance(instance('dead-idle'));
        const begin = (sessionId: string, instanceId: string | null | undefined): string =>
          store.beginCall(sampleBeginInput({ sessionId, instanceId })).callId;
        const live = begin('a', 'live');
        const liveFinished = begin('a', 'live');
        store.finishCall(liveFinished, sampleFinishInput());
        const dead = begin('b', 'dead');
        const deadFinished = begin('b', 'dead');
        store.finishCall(deadFinished, sampleFinishInput());
        const legacy = begin('c', undefined);
        const unregistered = begin('d', 'never-registered');
        const judged: string[] = [];
        const recovery = store.recoverOrphanedCalls((row) => {
          judged.push(row.id);
          return row.id === 'live';
        });
        expect(judged.sort()).toEqual(['dead', 'dead-idle', 'live']);
        expect(recovery.calls).toBe(3);
        expect(recovery.instances.sort()).toEqual(['dead', 'dead-idle', 'never-registered']);
        const status = (callId: string): string | undefined => store.getCall(callId)?.status;
        expect([live, liveFinished, dead, deadFinished, legacy, unregistered].map(status)).toEqual([
          'in_progress',
          'ok',
          'incomplete',
          'ok',
          'incomplete',
          'incomplete',
        ]);
        // the gone gateways' rows are gone: a second recovery judges only the live one and changes nothing
        const again: string[] = [];
        expect(
          store.recoverOrphanedCalls((row) => {
            again.push(row.id);
            return true;
          }),
        ).toEqual({ calls: 0, instances: [] });
        expect(again).toEqual(['live']);
        // the live gateway's call still finishes
        store.finishCall(live, sampleFinishInput());
        expect(status(live)).toBe('ok');
      });

      it('touch refreshes seenAt, remove forgets a gateway, and a read-only store refuses all of it', () => {
        const store = workspace.open();
        store.registerInstance(instance('g'));
        store.touchInstance('g', 42);
        const seen: number[] = [];
        store.recoverOrphanedCalls((row) => {
          seen.push(row.seenAt);
          return true;
        });
        expect(seen).toEqual([42]);
        store.removeInstance('g');
        const after: string[] = [];
        store.recoverOrphanedCalls((row) => {
          after.push(row.id);
          return true;
        });
        expect(after).toEqual([]);
        store.close();
        const reader = workspace.open({ readonly: true });
        expect(() => reader.registerInstance(instance('x'))).toThrow(/read-only/);
        expect(() => reader.recoverOrphanedCalls(() => true)).toThrow(/read-only/);
      });
    });
  });
}
