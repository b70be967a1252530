import { createHash } from 'node:crypto';

/**
 * The replica a new session goes to: rendezvous (highest-random-weight) hashing of the session id over the ids of
 * the usable replicas. Each (session, replica) pair gets a stable score and the highest wins, so adding a replica
 * takes over only the ~1/N of new placements it now wins, and removing one moves only the sessions it held
 * (Thaler and Ravishankar, "A Name-Based Mapping Scheme for Rendezvous", 1996). sha1 rather than FNV-1a: replica ids
 * differ in their last character (`vllm-1`, `vllm-2`) and FNV's weak avalanche would rank them alike for every session.
 * Undefined when `replicaIds` is empty.
 *
 * @example rendezvousPick('session-1', ['vllm-1', 'vllm-2', 'sglang-1']) // the same id on every call and in every process
 */
export function rendezvousPick(sessionId: string, replicaIds: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const replicaId of replicaIds) {
    const score = rendezvousScore(sessionId, replicaId);
    // equal scores (never seen with 48 bits, but possible): the smaller id wins, so the order given does not matter
    if (score > bestScore || (score === bestScore && best !== undefined && replicaId < best)) {
      best = replicaId;
      bestScore = score;
    }
  }
  return best;
}

/** The weight of one (session, replica) pair: 48 bits of sha1 over both, NUL-separated so `a`+`bc` is not `ab`+`c`. */
function rendezvousScore(sessionId: string, replicaId: string): number {
  return createHash('sha1').update(sessionId).update('\u0000').update(replicaId).digest().readUIntBE(0, 6);
}
