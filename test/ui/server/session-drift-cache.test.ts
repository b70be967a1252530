import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../../store/index.js';
import { SessionDriftCache } from '../../../ui/server/session-drift.js';
import { listSessionItems } from '../../../ui/server/session-list.js';
import { sessionListQuery } from '../../../ui/server/viewer-queries.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { recordCall } from '../../store/store-fixtures.js';

/** A call of `sessionId` at `at` with these prompt and completion ids. */
function call(store: Store, sessionId: string, at: number, prompt: number[], completion: number[]): void {
  recordCall(
    store,
    { sessionId, startedAt: at },
    { promptTokenIds: prompt, completionTokenIds: completion, completionLogprobs: completion.map(() => -0.5), endedAt: at + 10 },
  );
}

describe("the viewer's drift cache under a drift filter", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  it('reconstructs each session once while it does not change, and again (only that one) after a call that breaks its chain', () => {
    const temp = makeTempDir('tokentap-drift-cache-');
    cleanups.push(() => temp.remove());
    const store = openStore({ path: temp.file('tokentap.db') });
    cleanups.push(() => store.close());
    // two sessions whose second call extends the first's prompt and completion: one merged sample each, no drift
    for (const [index, sessionId] of ['steady', 'edited-later'].entries()) {
      call(store, sessionId, 1000 + index, [1, 2, 3], [4, 5]);
      call(store, sessionId, 2000 + index, [1, 2, 3, 4, 5, 6], [7, 8]);
    }
    const cache = new SessionDriftCache(store, undefined);
    const reconstructed = vi.spyOn(cache, 'report');
    const query = sessionListQuery.parse({ drift: 'parallel-branch' });

    expect(listSessionItems(store, cache, query)).toMatchObject({ total: 0, sessions: [] });
    expect(reconstructed.mock.calls.map(([sessionId]) => sessionId).sort()).toEqual(['edited-later', 'steady']);
    // nothing changed: the same answer from the cache, no reconstruction
    expect(listSessionItems(store, cache, query)).toMatchObject({ total: 0, sessions: [] });
    expect(reconstructed).toHaveBeenCalledTimes(2);

    // a third call whose prompt leaves the chain at its second token (the merge, with no texts to compare, starts a
    // branch there)
    call(store, 'edited-later', 3000, [1, 9, 3, 4, 5, 6, 7, 8, 10], [11]);
    const listed = listSessionItems(store, cache, query);
    expect(listed.total).toBe(1);
    expect(listed.sessions).toEqual([expect.objectContaining({ id: 'edited-later', drift: { 'parallel-branch': 1 }, samples: 2 })]);
    // only the session that changed was reconstructed again
    expect(reconstructed.mock.calls.slice(2).map(([sessionId]) => sessionId)).toEqual(['edited-later']);

    // the unfiltered list reads the same cache: no reconstruction for either session
    const all = listSessionItems(store, cache, sessionListQuery.parse({}));
    expect(all.sessions.map((session) => [session.id, session.drift])).toEqual([
      ['edited-later', { 'parallel-branch': 1 }],
      ['steady', {}],
    ]);
    expect(reconstructed).toHaveBeenCalledTimes(3);
  });
});
