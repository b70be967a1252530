import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyMigrations, readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import { initialMigration } from '../../store/migrations/001-initial.js';
import { LATEST_SCHEMA_VERSION } from '../../store/migrations/migrations.js';
import { engineSuiteName, engineUnavailable, recordCall, STORE_ENGINES, storeErrorCode, workspaceForEachTest } from './store-fixtures.js';

const hash = (key: string): Buffer => createHash('sha256').update(key).digest();

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    describe('rollout sessions', () => {
      it('a created rollout keeps its fields, finds its session by key hash, and stores no key', () => {
        const store = workspace.open();
        const created = store.createRollout({
          sessionId: 'r-1',
          groupId: 'task-7',
          task: { prompt: 'add 2 and 2' },
          tags: ['math'],
          split: 'train',
          sampling: { temperature: 1 },
          keyHash: hash('tt-secret'),
          createdAt: 100,
        });
        expect(created).toMatchObject({
          id: 'r-1',
          origin: 'api',
          status: 'open',
          groupId: 'task-7',
          task: { prompt: 'add 2 and 2' },
          tags: ['math'],
          split: 'train',
          sampling: { temperature: 1 },
          hasKey: true,
          createdAt: 100,
          endedAt: null,
          endReason: null,
        });
        expect(store.findSessionByKeyHash(hash('tt-secret'))).toBe('r-1');
        expect(store.findSessionByKeyHash(hash('tt-other'))).toBeNull();
        store.close();
        const keys = workspace.inspect((database) => database.prepare<[], { key_hash: Buffer }>(`SELECT key_hash FROM session_keys`).all());
        expect(keys.map((row) => Buffer.from(row.key_hash))).toEqual([hash('tt-secret')]);
      });

      it('a session made by a call reads back as an open implicit rollout; an id in use cannot be created again', () => {
        const store = workspace.open();
        recordCall(store, { sessionId: 'by-path' });
        expect(store.getRollout('by-path')).toMatchObject({ origin: 'implicit', status: 'open', groupId: null, hasKey: false, tags: [] });
        expect(storeErrorCode(() => store.createRollout({ sessionId: 'by-path', createdAt: 1 }))).toBe('STORE_SESSION_EXISTS');
        expect(store.getRollout('missing')).toBeNull();
      });

      it('ends a session once; ending it again or ending an unknown one changes nothing', () => {
        const store = workspace.open();
        store.createRollout({ sessionId: 'r-1', createdAt: 1 });
        const { rollout } = store.endSession('r-1', { status: 'truncated', reason: 'explicit', endedAt: 5 });
        expect(rollout).toMatchObject({ status: 'truncated', endedAt: 5, endReason: 'explicit' });
        expect(storeErrorCode(() => store.endSession('r-1', { status: 'completed', reason: 'explicit', endedAt: 6 }))).toBe('STORE_SESSION_ENDED');
        expect(store.getRollout('r-1')).toMatchObject({ status: 'truncated', endedAt: 5 });
        expect(storeErrorCode(() => store.endSession('nope', { status: 'completed', reason: 'explicit', endedAt: 6 }))).toBe(
          'STORE_SESSION_NOT_FOUND',
        );
      });

      it('lists open api sessions idle since before a time, not implicit or ended ones', () => {
        const store = workspace.open();
        store.createRollout({ sessionId: 'idle', createdAt: 10 });
        store.createRollout({ sessionId: 'busy', createdAt: 10 });
        store.createRollout({ sessionId: 'ended', createdAt: 10 });
        store.endSession('ended', { status: 'completed', reason: 'explicit', endedAt: 11 });
        recordCall(store, { sessionId: 'busy', startedAt: 50 });
        recordCall(store, { sessionId: 'implicit', startedAt: 5 });
        expect(store.listIdleRollouts(40)).toEqual(['idle']);
      });
    });

    describe('groups', () => {
      it('completes a declared group when its size of sessions have ended, once, in the ending transaction', () => {
        const store = workspace.open();
        expect(store.declareGroup({ groupId: 'g', expectedSize: 2, metadata: { task: 7 }, createdAt: 1 }).completed).toBe(false);
        store.createRollout({ sessionId: 'a', groupId: 'g', createdAt: 2 });
        store.createRollout({ sessionId: 'b', groupId: 'g', createdAt: 3 });
        expect(store.endSession('a', { status: 'completed', reason: 'explicit', endedAt: 4 }).completedGroup).toBeNull();
        const { completedGroup } = store.endSession('b', { status: 'failed', reason: 'explicit', endedAt: 5 });
        expect(completedGroup).toMatchObject({
          id: 'g',
          expectedSize: 2,
          completedAt: 5,
          metadata: { task: 7 },
          sessions: [
            { id: 'a', status: 'completed' },
            { id: 'b', status: 'failed' },
          ],
        });
        store.createRollout({ sessionId: 'c', groupId: 'g', createdAt: 6 });
        expect(store.endSession('c', { status: 'completed', reason: 'explicit', endedAt: 7 }).completedGroup).toBeNull();
      });

      it('a group named by sessions first is completed by its later declaration; another size is a conflict', () => {
        const store = workspace.open();
        store.createRollout({ sessionId: 'a', groupId: 'g', createdAt: 1 });
        store.endSession('a', { status: 'completed', reason: 'explicit', endedAt: 2 });
        expect(store.getGroup('g')).toMatchObject({ expectedSize: null, completedAt: null });
        expect(store.declareGroup({ groupId: 'g', expectedSize: 1, createdAt: 3 })).toMatchObject({ completed: true, group: { completedAt: 3 } });
        expect(store.declareGroup({ groupId: 'g', expectedSize: 1, createdAt: 4 }).completed).toBe(false);
        expect(storeErrorCode(() => store.declareGroup({ groupId: 'g', expectedSize: 2, createdAt: 5 }))).toBe('STORE_GROUP_CONFLICT');
        expect(store.getGroup('g')?.expectedSize).toBe(1);
      });

      it("lists a group's sessions in the order they were created, even within one millisecond", () => {
        const store = workspace.open();
        store.declareGroup({ groupId: 'g', expectedSize: 3, createdAt: 1 });
        // ids that sort against their creation order, all made in the same millisecond (random ids do this often)
        for (const sessionId of ['zeta', 'mid', 'alpha']) store.createRollout({ sessionId, groupId: 'g', createdAt: 2 });
        expect(store.getGroup('g')?.sessions.map((session) => session.id)).toEqual(['zeta', 'mid', 'alpha']);
      });
    });

    describe('rewards and policy versions', () => {
      it('keeps every reward; the newest per session and per call is current, session first then calls in order', () => {
        const store = workspace.open();
        store.createRollout({ sessionId: 's', createdAt: 1 });
        const first = recordCall(store, { sessionId: 's' });
        const second = recordCall(store, { sessionId: 's' });
        store.addReward({ sessionId: 's', callId: second, value: 0.1, source: 'admin', createdAt: 2 });
        store.addReward({ sessionId: 's', value: 0, source: 'admin', createdAt: 3 });
        store.addReward({ sessionId: 's', value: 1.5, components: { correct: 1, style: 0.5 }, source: 'library', createdAt: 4 });
        store.addReward({ sessionId: 's', callId: first, value: 0.2, source: 'session-key', createdAt: 5 });
        expect(store.listRewards('s').map((reward) => [reward.callId, reward.value, reward.components])).toEqual([
          [null, 1.5, { correct: 1, style: 0.5 }],
          [first, 0.2, null],
          [second, 0.1, null],
        ]);
        expect(store.listRewards('s', { history: true }).map((reward) => reward.value)).toEqual([0.1, 0, 1.5, 0.2]);
      });

      it('refuses a reward for an unknown session or for a call of another session, storing nothing', () => {
        const store = workspace.open();
        store.createRollout({ sessionId: 's', createdAt: 1 });
        const elsewhere = recordCall(store, { sessionId: 'other' });
        expect(storeErrorCode(() => store.addReward({ sessionId: 'nope', value: 1, source: 'admin', createdAt: 2 }))).toBe('STORE_SESSION_NOT_FOUND');
        expect(storeErrorCode(() => store.addReward({ sessionId: 's', callId: elsewhere, value: 1, source: 'admin', createdAt: 2 }))).toBe(
          'STORE_CALL_NOT_FOUND',
        );
        expect(storeErrorCode(() => store.addReward({ sessionId: 's', callId: 'missing', value: 1, source: 'admin', createdAt: 2 }))).toBe(
          'STORE_CALL_NOT_FOUND',
        );
        expect(store.listRewards('s', { history: true })).toEqual([]);
      });

      it('refuses a reward that is not finite within ±1e30, in its value, a component or the sum of its components, storing nothing', () => {
        const store = workspace.open();
        store.createRollout({ sessionId: 's', createdAt: 1 });
        const refused: Array<{ value: number; components?: Record<string, number> }> = [
          { value: Infinity },
          { value: -Infinity },
          { value: Number.NaN },
          { value: 1.7e308 },
          { value: -1e31 },
          { value: 1, components: { a: Infinity } },
          { value: 1, components: { a: 1e30, b: 1e30 } },
          // the attack of issue 12: each part finite, the sum Infinity
          { value: 1.7e308 + 1.7e308, components: { a: 1.7e308, b: 1.7e308 } },
        ];
        for (const reward of refused) {
          expect(
            storeErrorCode(() => store.addReward({ sessionId: 's', ...reward, source: 'admin', createdAt: 2 })),
            JSON.stringify(reward),
          ).toBe('STORE_INVALID_INPUT');
        }
        expect(store.listRewards('s', { history: true })).toEqual([]);
        expect(store.addReward({ sessionId: 's', value: -1e30, components: { a: -1e30 }, source: 'admin', createdAt: 3 }).value).toBe(-1e30);
      });

      it('the newest policy version is current and survives a reopen', () => {
        const store = workspace.open();
        expect(store.getPolicyVersion()).toBeNull();
        store.setPolicyVersion('step-1', 10);
        store.setPolicyVersion('step-2', 20);
        store.close();
        expect(workspace.open().getPolicyVersion()).toEqual({ version: 'step-2', setAt: 20 });
      });
    });
  });
}

// SQLite only: PostgreSQL's schema starts at version 6 (store/postgres/migrations), it has no version 1 to upgrade
describe('sqlite: migration 2', () => {
  const workspace = workspaceForEachTest('sqlite');

  it('upgrades a version-1 database with its sessions and calls: they read back as open implicit sessions', () => {
    const database = new Database(workspace.databasePath);
    applyMigrations(database, [initialMigration]);
    database.prepare(`INSERT INTO sessions (id, created_at, activity_at, metadata) VALUES ('old', 1, 1, '{}')`).run();
    database.close();
    const store = workspace.open();
    expect(store.getRollout('old')).toMatchObject({ origin: 'implicit', status: 'open', hasKey: false });
    store.close();
    const check = new Database(workspace.databasePath);
    expect(readSchemaVersion(check)).toBe(LATEST_SCHEMA_VERSION);
    check.close();
  });
});
