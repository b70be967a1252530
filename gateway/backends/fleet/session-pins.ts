/** The sessions a fleet remembers, each with the replica its next call goes to. */
export interface SessionPins {
  /** the replica `key` is pinned to, or undefined; a hit counts as the session's newest use */
  get(key: string): string | undefined;
  /** pins `key` to `replicaId`, dropping the oldest session when more than the limit are remembered */
  set(key: string, replicaId: string): void;
  /** forgets every session pinned to `replicaId` (it went down or was drained: they move on their next call) */
  unpinReplica(replicaId: string): number;
  /** how many sessions are pinned to `replicaId` */
  countFor(replicaId: string): number;
}

/**
 * The pins of a fleet's sessions, least recently used first out once `limit` are remembered (a Map keeps insertion
 * order: a hit is moved to the end). Counted per replica for snapshots and metrics, so counting is never a scan.
 *
 * @example
 * const pins = createSessionPins(100_000);
 * pins.set('policy\u0000session-1', 'vllm-2');
 * pins.get('policy\u0000session-1'); // 'vllm-2'
 */
export function createSessionPins(limit: number): SessionPins {
  const byKey = new Map<string, string>();
  const counts = new Map<string, number>();
  const adjust = (replicaId: string, by: number): void => {
    const next = (counts.get(replicaId) ?? 0) + by;
    if (next === 0) counts.delete(replicaId);
    else counts.set(replicaId, next);
  };
  const remove = (key: string): void => {
    const replicaId = byKey.get(key);
    if (replicaId === undefined) return;
    byKey.delete(key);
    adjust(replicaId, -1);
  };
  return {
    get(key) {
      const replicaId = byKey.get(key);
      if (replicaId === undefined) return undefined;
      byKey.delete(key);
      byKey.set(key, replicaId);
      return replicaId;
    },
    set(key, replicaId) {
      remove(key);
      byKey.set(key, replicaId);
      adjust(replicaId, 1);
      while (byKey.size > limit) {
        const oldest = byKey.keys().next();
        if (oldest.done === true) break;
        remove(oldest.value);
      }
    },
    unpinReplica(replicaId) {
      let removed = 0;
      for (const [key, pinned] of byKey) {
        if (pinned !== replicaId) continue;
        byKey.delete(key);
        removed += 1;
      }
      counts.delete(replicaId);
      return removed;
    },
    countFor: (replicaId) => counts.get(replicaId) ?? 0,
  };
}
