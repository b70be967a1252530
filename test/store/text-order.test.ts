import { describe, expect, it } from 'vitest';
import { engineSuiteName, engineUnavailable, recordCall, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';

/** Ids whose order differs between bytes (SQLite's BINARY) and a language's collation (en-US: a, b, B, é; _ first). */
const IDS = ['b', 'é', '_x', 'B', 'a', 'a-2', 'a1'];
/** By UTF-8 bytes, as SQLite compares text. */
const BYTE_ORDER = [...IDS].sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right)));

// Ties on a time are broken by id; SQLite compares ids by their bytes, and a PostgreSQL database by its collation
// unless its columns say otherwise (the test databases use ICU's en-US where the server has it, as many do).
for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: ids order by their bytes`, () => {
    const workspace = workspaceForEachTest(engine);

    it('sessions active at the same moment, a batch’s groups and leases taken together list in byte order; a group’s sessions in creation order', () => {
      const store = workspace.open();
      expect(BYTE_ORDER).toEqual(['B', '_x', 'a', 'a-2', 'a1', 'b', 'é']);
      for (const id of IDS) recordCall(store, { sessionId: `s-${id}`, startedAt: 5 });
      expect(store.listSessions().map((session) => session.id)).toEqual(BYTE_ORDER.map((id) => `s-${id}`));

      store.declareGroup({ groupId: 'g', expectedSize: IDS.length, createdAt: 1 });
      for (const id of IDS) store.createRollout({ sessionId: `r-${id}`, groupId: 'g', createdAt: 1 });
      // a group's sessions compare no ids: they list as they were created (rollouts.test.ts), on both engines
      expect(store.getGroup('g')?.sessions.map((session) => session.id)).toEqual(IDS.map((id) => `r-${id}`));

      for (const id of IDS) {
        store.declareGroup({ groupId: `g-${id}`, expectedSize: 1, createdAt: 1 });
        store.createRollout({ sessionId: `one-${id}`, groupId: `g-${id}`, createdAt: 1 });
        store.endSession(`one-${id}`, { status: 'completed', reason: 'explicit', endedAt: 9 });
      }
      const servable = store.listServableGroups({ limit: 20, excludeIds: ['g'] });
      expect(servable).toEqual(BYTE_ORDER.map((id) => `g-${id}`));
      for (const id of IDS)
        store.leaseBatch({ batchId: `lease-${id}`, consumer: 'trainer', minGroups: 1, maxGroups: 1, leasedAt: 10, expiresAt: 20 });
      expect(store.listLiveBatchLeases(15).map((lease) => lease.batchId)).toEqual(BYTE_ORDER.map((id) => `lease-${id}`));
      store.ackGroups('batch-1', servable, 'trainer', 30);
      expect(store.getBatchAck('batch-1')?.groupIds).toEqual(BYTE_ORDER.map((id) => `g-${id}`));
    });
  });
}
