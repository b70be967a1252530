import { afterEach, describe, expect, it } from 'vitest';
import { measureFleetFigures } from '../../bench/load-fleet-figures.js';
import { createTempWorkspace, recordCall, type TempWorkspace } from '../store/store-fixtures.js';

let workspace: TempWorkspace | undefined;
afterEach(() => workspace?.cleanup());

/** One finished call of `sessionId` on `backendId`, with these prompt and completion ids. */
type Call = [sessionId: string, backendId: string, prompt: number[], completion: number[], status?: 'ok' | 'backend_error'];

function storeWith(calls: Call[]): string {
  workspace = createTempWorkspace();
  const store = workspace.open();
  for (const [sessionId, backendId, prompt, completion, status] of calls)
    recordCall(store, { sessionId, backendId }, { status: status ?? 'ok', promptTokenIds: prompt, completionTokenIds: completion });
  store.close();
  return workspace.databasePath;
}

describe("the load bench's fleet figures", () => {
  it("count each replica's calls, sessions and prefix-cache share against its previous call of the session", () => {
    const db = storeWith([
      ['s1', 'a', [1, 2, 3], [4]],
      // goes on with the whole previous prompt and completion: a continuation, 4 tokens cached
      ['s1', 'a', [1, 2, 3, 4, 5], [6]],
      // the session's first call on b: nothing of it in b's cache
      ['s1', 'b', [1, 2, 3, 4, 5, 6, 7], [8]],
      // a's previous call of s1 is the second one (b's call between does not count): 6 tokens cached
      ['s1', 'a', [1, 2, 3, 4, 5, 6, 7, 8, 9], [10]],
      ['s2', 'a', [1, 2], [3]],
      // the prompt leaves the previous one after its first id: no hit, 1 token cached
      ['s2', 'a', [1, 9], [3]],
      // a failed call is not counted: s3 is a one-call session
      ['s3', 'b', [5, 6], [7], 'backend_error'],
      ['s3', 'b', [5, 6, 7, 8], [9]],
    ]);
    const figures = measureFleetFigures(db, ['a', 'b', 'c']);
    expect(figures.replicas).toEqual([
      { id: 'a', calls: 5, sessions: 2, followUps: 3, prefixHits: 2, continuationHits: 2, promptTokens: 21, cachedTokens: 11 },
      { id: 'b', calls: 2, sessions: 2, followUps: 0, prefixHits: 0, continuationHits: 0, promptTokens: 11, cachedTokens: 0 },
      { id: 'c', calls: 0, sessions: 0, followUps: 0, prefixHits: 0, continuationHits: 0, promptTokens: 0, cachedTokens: 0 },
    ]);
    expect(figures).toMatchObject({ calls: 7, multiCallSessions: 2, sessionsOnOneReplica: 1, spread: { min: 0, max: 5 } });
    // calls 5, 2, 0: mean 7/3, variance 38/9
    expect(figures.spread.cv).toBeCloseTo(Math.sqrt(38 / 9) / (7 / 3), 10);
  });
});
