import { openStore, type CallRow } from '../store/index.js';

/** One replica's share of a load phase, as the store recorded it. */
export interface ReplicaFigures {
  id: string;
  /** `ok` calls it served */
  calls: number;
  /** sessions it served a call of: each one's prefix held in its cache (the cache memory a session costs the fleet) */
  sessions: number;
  /** calls after which the replica had served an earlier call of the same session */
  followUps: number;
  /**
   * calls whose prompt ids start with the prompt ids of this replica's previous call of the session: what its
   * prefix cache still holds (when nothing evicted it) covers at least that whole prompt
   */
  prefixHits: number;
  /** of those, calls whose prompt goes on with that call's completion ids too (token-exact continuation) */
  continuationHits: number;
  /** prompt tokens of its calls */
  promptTokens: number;
  /** of them, the common prefix with the prompt + completion ids of this replica's previous call of the session */
  cachedTokens: number;
}

/** What one load phase (one gateway, one database) did with the fleet. */
export interface FleetFigures {
  replicas: ReplicaFigures[];
  /** `ok` calls in the store */
  calls: number;
  /** sessions with two calls or more, and of them those whose every call was on one replica */
  multiCallSessions: number;
  sessionsOnOneReplica: number;
  /** calls per replica: the fewest, the most, and the coefficient of variation (standard deviation / mean) */
  spread: { min: number; max: number; cv: number };
}

/**
 * Reads a load phase's database (after its gateway stopped) and measures each replica's calls and the prefix-cache
 * share it would have seen: for each call, the replica's previous call of the same session (the newest earlier one it
 * served, seq order) and the common prefix of this call's prompt ids with that call's prompt + completion ids.
 * `replicaIds` are every replica of the fleet, so one that served nothing counts in the spread.
 *
 * @example const figures = measureFleetFigures('load-session.db', ['vllm-1', 'vllm-2']); // figures.spread.cv
 */
export function measureFleetFigures(dbPath: string, replicaIds: readonly string[]): FleetFigures {
  const store = openStore({ path: dbPath, readonly: true });
  try {
    const byReplica = new Map<string, ReplicaFigures>(replicaIds.map((id) => [id, emptyReplica(id)]));
    let multiCallSessions = 0;
    let sessionsOnOneReplica = 0;
    const sessions = store.listSessions({ limit: Number.MAX_SAFE_INTEGER });
    for (const session of sessions) {
      const calls = store.listCalls(session.id).filter((call) => call.status === 'ok' && call.backendId !== null);
      if (calls.length >= 2) {
        multiCallSessions += 1;
        if (new Set(calls.map((call) => call.backendId)).size === 1) sessionsOnOneReplica += 1;
      }
      countSession(calls, byReplica);
    }
    const replicas = [...byReplica.values()];
    const counts = replicas.map((replica) => replica.calls);
    const calls = counts.reduce((sum, count) => sum + count, 0);
    const mean = calls / Math.max(1, counts.length);
    const variance = counts.reduce((sum, count) => sum + (count - mean) ** 2, 0) / Math.max(1, counts.length);
    return {
      replicas,
      calls,
      multiCallSessions,
      sessionsOnOneReplica,
      spread: { min: Math.min(...counts), max: Math.max(...counts), cv: mean === 0 ? 0 : Math.sqrt(variance) / mean },
    };
  } finally {
    store.close();
  }
}

function emptyReplica(id: string): ReplicaFigures {
  return { id, calls: 0, sessions: 0, followUps: 0, prefixHits: 0, continuationHits: 0, promptTokens: 0, cachedTokens: 0 };
}

/** Adds one session's `ok` calls (in seq order) to their replicas' figures. */
function countSession(calls: readonly CallRow[], byReplica: Map<string, ReplicaFigures>): void {
  const previousOn = new Map<string, CallRow>();
  for (const call of calls) {
    const id = call.backendId!;
    let replica = byReplica.get(id);
    if (replica === undefined) byReplica.set(id, (replica = emptyReplica(id)));
    const prompt = call.promptTokenIds ?? new Int32Array();
    replica.calls += 1;
    replica.promptTokens += prompt.length;
    const previous = previousOn.get(id);
    previousOn.set(id, call);
    if (previous === undefined) {
      replica.sessions += 1;
      continue;
    }
    replica.followUps += 1;
    const previousPrompt = previous.promptTokenIds ?? new Int32Array();
    const previousCompletion = previous.completionTokenIds ?? new Int32Array();
    const common = commonPrefix(prompt, previousPrompt, previousCompletion);
    replica.cachedTokens += common;
    if (previousPrompt.length > 0 && common >= previousPrompt.length) replica.prefixHits += 1;
    if (previousPrompt.length > 0 && common === previousPrompt.length + previousCompletion.length) replica.continuationHits += 1;
  }
}

/** Length of the common prefix of `ids` and `head` followed by `tail`. */
function commonPrefix(ids: ArrayLike<number>, head: ArrayLike<number>, tail: ArrayLike<number>): number {
  const limit = Math.min(ids.length, head.length + tail.length);
  for (let index = 0; index < limit; index++) {
    const other = index < head.length ? head[index] : tail[index - head.length];
    if (ids[index] !== other) return index;
  }
  return limit;
}
