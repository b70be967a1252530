import { describe, expect, it } from 'vitest';
import { isStoreError } from '../../../store/index.js';
import { engineSuiteName, engineUnavailable, STORE_ENGINES, workspaceForEachTest } from '../../store/store-fixtures.js';
import { addGroup } from './batch-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    describe('servable groups and acks in the store', () => {
      it('lists complete groups only, oldest completion first, up to the limit', () => {
        const store = workspace.open();
        addGroup(store, 'late', { completedAt: 3000 });
        addGroup(store, 'early', { completedAt: 1000 });
        addGroup(store, 'open', { completedAt: 500, incomplete: true });
        addGroup(store, 'middle', { completedAt: 2000 });
        expect(store.listServableGroups({ limit: 10 })).toEqual(['early', 'middle', 'late']);
        expect(store.listServableGroups({ limit: 2 })).toEqual(['early', 'middle']);
      });

      it('leaves out excluded (leased) groups', () => {
        const store = workspace.open();
        addGroup(store, 'a', { completedAt: 1000 });
        addGroup(store, 'b', { completedAt: 2000 });
        addGroup(store, 'c', { completedAt: 3000 });
        expect(store.listServableGroups({ limit: 10, excludeIds: ['a', 'c'] })).toEqual(['b']);
      });

      it('keeps a group when one of its sessions matches the split, tags and creation window', () => {
        const store = workspace.open();
        addGroup(store, 'train-math', { completedAt: 1000, createdAt: 100, split: 'train', tags: ['math', 'easy'] });
        addGroup(store, 'train-code', { completedAt: 2000, createdAt: 200, split: 'train', tags: ['code'] });
        addGroup(store, 'val-math', { completedAt: 3000, createdAt: 300, split: 'val', tags: ['math'] });
        expect(store.listServableGroups({ limit: 10, split: 'train' })).toEqual(['train-math', 'train-code']);
        expect(store.listServableGroups({ limit: 10, tags: ['math'] })).toEqual(['train-math', 'val-math']);
        expect(store.listServableGroups({ limit: 10, tags: ['math', 'easy'] })).toEqual(['train-math']);
        expect(store.listServableGroups({ limit: 10, since: 200, until: 300 })).toEqual(['train-code']);
        expect(store.listServableGroups({ limit: 10, split: 'test' })).toEqual([]);
      });

      it('an ack consumes its groups for good: they are never listed again, also after reopening the store', () => {
        const first = workspace.open();
        addGroup(first, 'a', { completedAt: 1000 });
        addGroup(first, 'b', { completedAt: 2000 });
        expect(first.ackGroups('batch-1', ['a'], 'trainer-0', 5000)).toBe(1);
        expect(first.listServableGroups({ limit: 10 })).toEqual(['b']);
        first.close();
        const second = workspace.open();
        expect(second.listServableGroups({ limit: 10 })).toEqual(['b']);
        expect(second.getBatchAck('batch-1')).toEqual({ batchId: 'batch-1', groupIds: ['a'], consumer: 'trainer-0', ackedAt: 5000 });
        expect(second.getBatchAck('batch-2')).toBeNull();
      });

      it('acknowledging a group twice keeps its first ack', () => {
        const store = workspace.open();
        addGroup(store, 'a', { completedAt: 1000 });
        expect(store.ackGroups('batch-1', ['a'], 'trainer-0', 5000)).toBe(1);
        expect(store.ackGroups('batch-2', ['a'], 'trainer-1', 6000)).toBe(0);
        expect(store.getBatchAck('batch-1')?.groupIds).toEqual(['a']);
        expect(store.getBatchAck('batch-2')).toBeNull();
      });

      it('refuses to acknowledge an unknown or incomplete group, acknowledging none of the batch', () => {
        const store = workspace.open();
        addGroup(store, 'done', { completedAt: 1000 });
        addGroup(store, 'running', { completedAt: 1000, incomplete: true });
        for (const groupIds of [
          ['done', 'nope'],
          ['done', 'running'],
        ]) {
          let failure: unknown;
          try {
            store.ackGroups('batch-1', groupIds, 'trainer-0', 5000);
          } catch (error) {
            failure = error;
          }
          expect(isStoreError(failure, 'STORE_INVALID_INPUT')).toBe(true);
        }
        expect(store.listServableGroups({ limit: 10 })).toEqual(['done']);
      });
    });
  });
}
