import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExportSummary, DEFAULT_UNIT_PAGE, exportSamples, type ExportSource } from '../../export/index.js';
import { DEFAULT_READ_AHEAD_SESSIONS } from '../../export/read-ahead-units.js';
import { verifySample } from '../../reconstruct/index.js';
import { type CreateRolloutInput, type ExportUnitsQuery, type Store } from '../../store/index.js';
import { recordRawCall } from '../reconstruct/record-raw-call.js';
import { createTempWorkspace, engineSuiteName, engineUnavailable, STORE_ENGINES, type TempWorkspace } from '../store/store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}`, () => {
    let workspace: TempWorkspace;
    let store: Store;
    beforeEach(() => {
      workspace = createTempWorkspace(engine);
      store = workspace.open();
    });
    afterEach(() => workspace.cleanup());

    /** A rollout with one recorded call (3 prompt tokens, 2 sampled), a reward, ended `completed` unless `open`. */
    function addRollout(
      input: Omit<CreateRolloutInput, 'createdAt'> & { createdAt?: number },
      options: { reward?: number; open?: boolean } = {},
    ): void {
      store.createRollout({ createdAt: 1000, ...input });
      recordRawCall(store, input.sessionId, { prompt: [1, 2, 3], completion: [4, 5] });
      if (options.reward !== undefined) store.addReward({ sessionId: input.sessionId, value: options.reward, source: 'library', createdAt: 1 });
      if (options.open !== true) store.endSession(input.sessionId, { status: 'completed', reason: 'explicit', endedAt: 2 });
    }

    const sessionsOf = (source: ExportSource, options: Parameters<typeof exportSamples>[1] = {}): string[] =>
      [...exportSamples(source, options)].map((item) => item.sample.sessionId);

    describe('export units', () => {
      it('come in the order their first session was created, a group at its first session with all its sessions', () => {
        addRollout({ sessionId: 'g1-a', groupId: 'g1', createdAt: 1 });
        addRollout({ sessionId: 's1', createdAt: 2 });
        addRollout({ sessionId: 'g2-a', groupId: 'g2', createdAt: 3 });
        addRollout({ sessionId: 'g1-b', groupId: 'g1', createdAt: 4 });
        addRollout({ sessionId: 's2', createdAt: 5 });
        const items = [...exportSamples(store, {})];
        expect(items.map((item) => [item.groupKey, item.sample.sessionId])).toEqual([
          ['g1', 'g1-a'],
          ['g1', 'g1-b'],
          ['s1', 's1'],
          ['g2', 'g2-a'],
          ['s2', 's2'],
        ]);
        for (const item of items) expect(verifySample(item.sample, store.listCalls(item.sample.sessionId))).toEqual({ ok: true });
      });

      // Its 555 rollouts cost PostgreSQL ten times SQLite's time; what it checks is the export's own paging (the same
      // code on both engines), and paging by position on PostgreSQL is in "store export queries" below
      describe.runIf(engine === 'sqlite')('on SQLite only (555 rollouts)', () => {
        /** A group of three whose first session comes before two pages and more of solo rollouts, its others after them. */
        function addPagedRollouts(): void {
          store.batch(() => {
            addRollout({ sessionId: 'group-0', groupId: 'g' }, { reward: 1 });
            for (let index = 0; index < DEFAULT_UNIT_PAGE * 2 + 40; index++) addRollout({ sessionId: `solo-${index}` });
            addRollout({ sessionId: 'group-1', groupId: 'g' }, { reward: 0 });
            addRollout({ sessionId: 'group-2', groupId: 'g' }, { reward: 1 });
          });
        }

        it('are read page by page, and a unit is reconstructed only when the previous one has been handed out', () => {
          addPagedRollouts();
          const pages: ExportUnitsQuery[] = [];
          const reconstructed = new Set<string>();
          const observed: ExportSource = {
            listExportUnits: (query) => {
              pages.push(query);
              return store.listExportUnits(query);
            },
            countExportSessions: (filter) => store.countExportSessions(filter),
            getGroup: (groupId) => store.getGroup(groupId),
            getRollout: (sessionId) => store.getRollout(sessionId),
            listRewards: (sessionId) => store.listRewards(sessionId),
            listCalls: (sessionId) => {
              reconstructed.add(sessionId);
              return store.listCalls(sessionId);
            },
            getCallBodies: (callId) => store.getCallBodies(callId),
            listPolicyVersions: () => store.listPolicyVersions(),
          };
          const handedOut = new Set<string>();
          let pagesAtFirstSample = 0;
          let mostWaiting = 0;
          for (const item of exportSamples(observed, {})) {
            if (handedOut.size === 0) pagesAtFirstSample = pages.length;
            handedOut.add(item.sample.sessionId);
            const waiting = [...reconstructed].filter((sessionId) => !handedOut.has(sessionId));
            // reconstructed but not handed out yet: only sessions of the unit being handed out
            for (const sessionId of waiting) expect(store.getRollout(sessionId)?.groupId ?? sessionId).toBe(item.groupKey);
            mostWaiting = Math.max(mostWaiting, waiting.length);
          }
          expect(handedOut.size).toBe(DEFAULT_UNIT_PAGE * 2 + 43);
          expect(pagesAtFirstSample).toBe(1);
          expect(mostWaiting).toBe(2);
          expect(pages.map((page) => page.limit)).toEqual([DEFAULT_UNIT_PAGE, DEFAULT_UNIT_PAGE, DEFAULT_UNIT_PAGE]);
          const positions = pages.map((page) => page.afterPosition);
          expect(positions[0]).toBe(0);
          expect(positions[1]).toBeLessThan(positions[2] as number);
        });

        it('with reads of several sessions, each session is read once, at most a read-ahead of sessions before it is handed out', () => {
          addPagedRollouts();
          const pages: ExportUnitsQuery[] = [];
          const reads: string[][] = [];
          const alone: string[] = [];
          const observed: ExportSource = {
            listExportUnits: (query) => {
              pages.push(query);
              return store.listExportUnits(query);
            },
            countExportSessions: (filter) => store.countExportSessions(filter),
            getGroup: (groupId) => store.getGroup(groupId),
            getRollout: (sessionId) => store.getRollout(sessionId),
            getRollouts: (sessionIds) => store.getRollouts(sessionIds),
            listRewards: (sessionId) => {
              alone.push(`rewards ${sessionId}`);
              return store.listRewards(sessionId);
            },
            listCalls: (sessionId) => {
              alone.push(`calls ${sessionId}`);
              return store.listCalls(sessionId);
            },
            listCallsAndRewards: (sessionIds) => {
              reads.push([...sessionIds]);
              return store.listCallsAndRewards(sessionIds);
            },
            getCallBodies: (callId) => store.getCallBodies(callId),
            listPolicyVersions: () => store.listPolicyVersions(),
          };
          const handedOut = new Set<string>();
          let mostWaiting = 0;
          for (const item of exportSamples(observed, {})) {
            handedOut.add(item.sample.sessionId);
            mostWaiting = Math.max(mostWaiting, reads.flat().filter((sessionId) => !handedOut.has(sessionId)).length);
          }
          expect(handedOut.size).toBe(DEFAULT_UNIT_PAGE * 2 + 43);
          expect(alone).toEqual([]);
          const read = reads.flat();
          expect(new Set(read).size).toBe(read.length);
          expect(new Set(read)).toEqual(handedOut);
          // whole units until a read-ahead is full: the group of 3 and 29 sessions, then 32 at a time, the rest last
          expect(reads.map((sessionIds) => sessionIds.length)).toEqual([...Array<number>(17).fill(DEFAULT_READ_AHEAD_SESSIONS), 11]);
          expect(mostWaiting).toBe(DEFAULT_READ_AHEAD_SESSIONS - 1);
          expect(pages.map((page) => page.limit)).toEqual([DEFAULT_UNIT_PAGE, DEFAULT_UNIT_PAGE, DEFAULT_UNIT_PAGE]);
        });
      });

      it('leave out rollouts the API opened and nobody ended, counted in_progress, unless the status filter asks for them', () => {
        addRollout({ sessionId: 'running' }, { open: true });
        addRollout({ sessionId: 'done' });
        recordRawCall(store, 'implicit', { prompt: [1, 2, 3], completion: [4, 5] });
        const summary = createExportSummary();
        expect(sessionsOf(store, { summary })).toEqual(['done', 'implicit']);
        expect(summary.dropped).toEqual({ in_progress: 1 });
        const asked = [...exportSamples(store, { filters: { status: ['completed', 'in_progress'] } })];
        expect(asked.map((item) => [item.sample.sessionId, item.sample.status])).toEqual([
          ['running', 'in_progress'],
          ['done', 'completed'],
          ['implicit', 'completed'],
        ]);
      });
    });

    describe('store export queries', () => {
      beforeEach(() => {
        addRollout({ sessionId: 'g1-a', groupId: 'g1', tags: ['math'], split: 'train', createdAt: 10 });
        addRollout({ sessionId: 's1', tags: ['eval'], split: 'val', createdAt: 20 });
        addRollout({ sessionId: 'g1-b', groupId: 'g1', tags: ['math', 'hard'], split: 'val', createdAt: 30 });
        addRollout({ sessionId: 's2', createdAt: 40 });
      });

      const unitsOf = (query: Partial<ExportUnitsQuery> = {}): Array<string | null> =>
        store.listExportUnits({ limit: 10, ...query }).map((unit) => unit.groupId ?? unit.sessionId);

      it('lists each unit once, at its first session, and pages by position', () => {
        const units = store.listExportUnits({ limit: 10 });
        expect(units.map((unit) => [unit.sessionId, unit.groupId])).toEqual([
          ['g1-a', 'g1'],
          ['s1', null],
          ['s2', null],
        ]);
        expect(unitsOf({ limit: 2 })).toEqual(['g1', 's1']);
        expect(unitsOf({ afterPosition: units[1]!.position })).toEqual(['s2']);
        expect(store.countExportSessions({})).toBe(4);
      });

      it('lists a unit when one of its sessions passes the filters, and counts all the sessions of such units', () => {
        expect(unitsOf({ split: 'val' })).toEqual(['g1', 's1']);
        expect(store.countExportSessions({ split: 'val' })).toBe(3);
        expect(unitsOf({ tags: ['math', 'hard'] })).toEqual(['g1']);
        expect(unitsOf({ tags: ['eval'] })).toEqual(['s1']);
        expect(unitsOf({ since: 25 })).toEqual(['g1', 's2']);
        expect(unitsOf({ until: 20 })).toEqual(['g1']);
        expect(unitsOf({ sessionIds: ['s2', 'g1-b'] })).toEqual(['g1', 's2']);
        expect(unitsOf({ groupIds: ['g1'] })).toEqual(['g1']);
        expect(store.countExportSessions({ groupIds: ['g1'] })).toBe(2);
        expect(unitsOf({ split: 'test' })).toEqual([]);
      });

      it('the export filters each rollout of a listed unit again', () => {
        expect(sessionsOf(store, { filters: { split: 'val' } })).toEqual(['g1-b', 's1']);
      });

      it('lists policy versions oldest first, repeats included', () => {
        store.setPolicyVersion('v1', 1);
        store.setPolicyVersion('v2', 2);
        store.setPolicyVersion('v1', 3);
        expect(store.listPolicyVersions()).toEqual([
          { version: 'v1', setAt: 1 },
          { version: 'v2', setAt: 2 },
          { version: 'v1', setAt: 3 },
        ]);
      });
    });
  });
}
