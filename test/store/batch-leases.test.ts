import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeaseBatchInput, Store } from '../../store/index.js';
import { addGroup } from '../gateway/batches/batch-fixtures.js';
import { outputLines, runStoreProcesses } from './run-store-processes.js';
import {
  createTempWorkspace,
  engineSuiteName,
  engineUnavailable,
  STORE_ENGINES,
  type TempWorkspace,
  workspaceForEachTest,
} from './store-fixtures.js';

/** A lease taken at `at` for `leaseMs` (1 to 10 groups unless told otherwise). */
function leaseAt(store: Store, batchId: string, at: number, overrides: Partial<LeaseBatchInput> = {}) {
  return store.leaseBatch({ batchId, consumer: 'trainer-0', minGroups: 1, maxGroups: 10, leasedAt: at, expiresAt: at + 1000, ...overrides });
}

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: pull leases in the store`, () => {
    let workspace: TempWorkspace;
    let store: Store;
    beforeEach(() => {
      workspace = createTempWorkspace(engine);
      store = workspace.open();
    });
    afterEach(() => workspace.cleanup());

    it('leases complete, unacknowledged groups oldest completion first, between minGroups and maxGroups, or none', () => {
      addGroup(store, 'late', { completedAt: 3000 });
      addGroup(store, 'early', { completedAt: 1000 });
      addGroup(store, 'open', { completedAt: 500, incomplete: true });
      addGroup(store, 'middle', { completedAt: 2000 });
      expect(leaseAt(store, 'too-many', 10_000, { minGroups: 4 })).toBeNull();
      expect(store.getBatchLease('too-many', 10_000)).toBeNull();
      expect(leaseAt(store, 'b-1', 10_000, { minGroups: 2, maxGroups: 2 })).toEqual({
        batchId: 'b-1',
        groupIds: ['early', 'middle'],
        consumer: 'trainer-0',
        leasedAt: 10_000,
        expiresAt: 11_000,
        state: 'live',
        endedAt: null,
      });
    });

    it('a group is in one live lease at a time; once that lease expires the next lease may take it', () => {
      for (const [index, groupId] of ['a', 'b', 'c'].entries()) addGroup(store, groupId, { completedAt: 1000 + index });
      expect(leaseAt(store, 'first', 10_000, { maxGroups: 2 })?.groupIds).toEqual(['a', 'b']);
      expect(leaseAt(store, 'second', 10_500)?.groupIds).toEqual(['c']);
      expect(leaseAt(store, 'third', 10_999)).toBeNull();
      // 'first' expires at 11 000 (expiry is read from the time given: expires_at <= now)
      expect(leaseAt(store, 'fourth', 11_000)?.groupIds).toEqual(['a', 'b']);
      expect(store.getBatchLease('first', 11_000)?.state).toBe('expired');
      expect(store.listLiveBatchLeases(11_000).map((lease) => [lease.batchId, lease.groupIds])).toEqual([
        ['second', ['c']],
        ['fourth', ['a', 'b']],
      ]);
    });

    it("picks groups by the pull's rollout filters: split, tags, creation window", () => {
      addGroup(store, 'train-math', { completedAt: 1000, createdAt: 100, split: 'train', tags: ['math', 'easy'] });
      addGroup(store, 'train-code', { completedAt: 2000, createdAt: 200, split: 'train', tags: ['code'] });
      addGroup(store, 'val-math', { completedAt: 3000, createdAt: 300, split: 'val', tags: ['math'] });
      expect(leaseAt(store, 'easy', 10_000, { filters: { tags: ['math', 'easy'] } })?.groupIds).toEqual(['train-math']);
      expect(leaseAt(store, 'train', 10_000, { filters: { split: 'train' } })?.groupIds).toEqual(['train-code']);
      expect(leaseAt(store, 'window', 10_000, { filters: { since: 300, until: 301 } })?.groupIds).toEqual(['val-math']);
      expect(leaseAt(store, 'test', 10_000, { filters: { split: 'test' } })).toBeNull();
    });

    it('an ack consumes the groups for good, in group_acks; a retried ack answers the same and changes nothing', () => {
      addGroup(store, 'a', { completedAt: 1000 });
      addGroup(store, 'b', { completedAt: 2000 });
      leaseAt(store, 'b-1', 10_000);
      const acked = store.acknowledgeBatch('b-1', 10_400);
      expect(acked).toEqual({ lease: expect.objectContaining({ groupIds: ['a', 'b'], state: 'acknowledged', endedAt: 10_400 }), ended: true });
      expect(store.getBatchAck('b-1')).toEqual({ batchId: 'b-1', groupIds: ['a', 'b'], consumer: 'trainer-0', ackedAt: 10_400 });
      expect(store.acknowledgeBatch('b-1', 10_900)).toEqual({ lease: acked?.lease, ended: false });
      // long after the lease's time: still consumed, never leased again
      expect(leaseAt(store, 'b-2', 50_000)).toBeNull();
      expect(store.listServableGroups({ limit: 10 })).toEqual([]);
      expect(store.releaseBatch('b-1', 10_950)).toEqual({ lease: acked?.lease, ended: false });
    });

    it('an ack or release after expiry changes nothing and answers the lease expired; an unknown batch is null', () => {
      addGroup(store, 'a', { completedAt: 1000 });
      leaseAt(store, 'b-1', 10_000);
      expect(store.acknowledgeBatch('b-1', 11_000)).toEqual({ lease: expect.objectContaining({ state: 'expired', endedAt: null }), ended: false });
      expect(store.releaseBatch('b-1', 11_000)?.lease.state).toBe('expired');
      expect(store.getBatchAck('b-1')).toBeNull();
      expect(store.listServableGroups({ limit: 10 })).toEqual(['a']);
      expect(store.acknowledgeBatch('no-such-batch', 11_000)).toBeNull();
      expect(store.releaseBatch('no-such-batch', 11_000)).toBeNull();
      expect(store.getBatchLease('no-such-batch', 11_000)).toBeNull();
    });

    it('a release gives the groups back at once; the released lease cannot be released or acknowledged after', () => {
      addGroup(store, 'a', { completedAt: 1000 });
      leaseAt(store, 'b-1', 10_000);
      expect(store.releaseBatch('b-1', 10_100)).toEqual({ lease: expect.objectContaining({ state: 'released', endedAt: 10_100 }), ended: true });
      expect(store.releaseBatch('b-1', 10_200)?.ended).toBe(false);
      expect(store.acknowledgeBatch('b-1', 10_200)).toEqual({ lease: expect.objectContaining({ state: 'released' }), ended: false });
      expect(leaseAt(store, 'b-2', 10_300)?.groupIds).toEqual(['a']);
    });

    it('leases are shared by every store on the database: leased on one, acknowledged on another, also after a reopen', () => {
      addGroup(store, 'a', { completedAt: 1000 });
      addGroup(store, 'b', { completedAt: 2000 });
      const other = workspace.open();
      expect(leaseAt(store, 'b-1', 10_000, { maxGroups: 1 })?.groupIds).toEqual(['a']);
      expect(leaseAt(other, 'b-2', 10_000)?.groupIds).toEqual(['b']);
      expect(other.getBatchLease('b-1', 10_100)?.state).toBe('live');
      expect(other.acknowledgeBatch('b-1', 10_100)?.ended).toBe(true);
      store.close();
      const reopened = workspace.open();
      expect(reopened.getBatchLease('b-2', 10_200)).toMatchObject({ groupIds: ['b'], state: 'live' });
      expect(reopened.acknowledgeBatch('b-2', 10_200)?.lease.state).toBe('acknowledged');
      expect(reopened.getBatchAck('b-1')?.groupIds).toEqual(['a']);
    });

    it('an ack whose groups a later lease took over (its clock reading the lease expired) is refused, and the lease ends expired', () => {
      addGroup(store, 'a', { completedAt: 1000 });
      const behind = workspace.open();
      leaseAt(store, 'b-1', 10_000);
      // a gateway whose clock is ahead leases the group once b-1 expired by its clock
      expect(leaseAt(store, 'b-2', 11_500)?.groupIds).toEqual(['a']);
      // the first consumer acks through a gateway whose clock still reads b-1 live
      expect(behind.acknowledgeBatch('b-1', 10_500)).toEqual({ lease: expect.objectContaining({ state: 'expired', endedAt: 10_500 }), ended: false });
      expect(store.getBatchAck('b-1')).toBeNull();
      expect(store.acknowledgeBatch('b-2', 11_600)?.ended).toBe(true);
      expect(store.getBatchAck('b-2')?.groupIds).toEqual(['a']);
    });

    it('a read-only store refuses to lease, release or acknowledge', () => {
      addGroup(store, 'a', { completedAt: 1000 });
      leaseAt(store, 'b-1', 10_000);
      const readonly = workspace.open({ readonly: true });
      expect(readonly.getBatchLease('b-1', 10_000)?.groupIds).toEqual(['a']);
      expect(() => leaseAt(readonly, 'b-2', 10_000)).toThrow(expect.objectContaining({ code: 'STORE_READONLY' }));
      expect(() => readonly.releaseBatch('b-1', 10_000)).toThrow(expect.objectContaining({ code: 'STORE_READONLY' }));
      expect(() => readonly.acknowledgeBatch('b-1', 10_000)).toThrow(expect.objectContaining({ code: 'STORE_READONLY' }));
    });
  });
}

const GROUPS = 40;
const LEASERS = 4;

/** One gateway's consumer loop: leases one or two groups at a time until none is left, acknowledging every other batch. */
const LEASER_SCRIPT = `
const [path, name] = args;
const opened = store.openStore({ path });
await ready();
for (let index = 0; ; index++) {
  const now = Date.now();
  const batchId = name + '-' + index;
  const lease = opened.leaseBatch({ batchId, consumer: name, minGroups: 1, maxGroups: 1 + (index % 2), leasedAt: now, expiresAt: now + 600000 });
  if (lease === null) break;
  const acked = index % 2 === 0 && opened.acknowledgeBatch(batchId, Date.now()).ended;
  console.log(JSON.stringify({ batchId, groupIds: lease.groupIds, acked }));
}
opened.close();
`;

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: leasing from several processes at once`, () => {
    const workspace = workspaceForEachTest(engine);

    it('gateway processes leasing at once never lease one group twice, and together lease every group', async () => {
      const store = workspace.open();
      const groupIds = Array.from({ length: GROUPS }, (_, index) => `g-${String(index).padStart(2, '0')}`);
      for (const [index, groupId] of groupIds.entries()) addGroup(store, groupId, { completedAt: 1000 + index, size: 1 });
      const results = await runStoreProcesses(
        workspace.dir,
        LEASER_SCRIPT,
        Array.from({ length: LEASERS }, (_, leaser) => [workspace.databasePath, `leaser-${leaser}`]),
      );
      expect(results.map((result) => [result.code, result.stderr])).toEqual(results.map(() => [0, '']));
      const leases = results.flatMap((result) => outputLines<{ batchId: string; groupIds: string[]; acked: boolean }>(result));
      const leased = leases.flatMap((lease) => lease.groupIds);
      expect([...leased].sort()).toEqual(groupIds);
      const acked = leases.filter((lease) => lease.acked);
      // every even batch of each leaser was acknowledged while live
      expect(acked.map((lease) => lease.batchId)).toEqual(leases.filter((lease) => /[02468]$/.test(lease.batchId)).map((lease) => lease.batchId));
      for (const lease of acked) expect(store.getBatchAck(lease.batchId)?.groupIds).toEqual(lease.groupIds);
      expect(store.listLiveBatchLeases(Date.now()).flatMap((lease) => lease.groupIds).length + acked.flatMap((lease) => lease.groupIds).length).toBe(
        GROUPS,
      );
    });
  });
}
