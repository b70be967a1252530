import { dialectOf, queuedAll, type SqlDatabase } from './sql/sql-database.js';
import { sharedPrefixLength } from '../core/token-ids/shared-prefix-length.js';
import { createPromptChain, type StoredPromptLink } from './prompt-chain.js';
import type { SequenceCache } from './sequence-cache.js';

/**
 * Prompt ids stored as deltas. An agent's next prompt is usually its previous prompt, the sampled
 * completion and a new turn, so storing every prompt whole costs quadratic space over a session.
 * Instead a prompt is stored as (parent call, prefix length, tail): its first `prefixLength` ids are
 * the first ids of the parent's base sequence (the parent's prompt followed by its completion), and
 * the rest is `tail`. The parent is the earlier call of the same session whose base shares the longest
 * prefix, among the last DEFAULT_PROMPT_PARENT_CANDIDATES calls that recorded a prompt.
 */

/** Earlier calls considered as a prompt's parent (the issue allows a bounded search). */
export const DEFAULT_PROMPT_PARENT_CANDIDATES = 32;

/** A prompt as stored: the parent's id (null for a prompt stored whole), the shared prefix, the rest. */
export interface PromptLink {
  parentId: string | null;
  prefixLength: number;
  tail: Int32Array;
}

/** An earlier call of the session that may be a prompt's parent: its id and the length of its base sequence. */
export interface PromptCandidate {
  id: string;
  baseLength: number;
}

export interface PromptDelta {
  /**
   * Reads the parent candidates of the call being finished (its session's newest calls with a prompt, newest first),
   * inside the finishing transaction: the read is queued (on PostgreSQL it travels with the caller's next statement),
   * and the returned function gives them.
   */
  candidatesLater(callId: string): () => PromptCandidate[];
  /**
   * Chooses the parent among the candidates (newest first; the call writer may hand the ones it remembers instead of
   * reading them: any earlier call of the session with a committed prompt is a correct parent, the best one only the
   * smallest).
   */
  encode(prompt: Int32Array, candidates: readonly PromptCandidate[]): PromptLink;
  /** Rebuilds the full prompt ids (a fresh array) from a stored link. */
  decode(link: StoredPromptLink): Int32Array;
  /** Caches a committed call's base sequence (a copy, so callers may keep their arrays) and returns it. */
  remember(callId: string, prompt: Int32Array, completion: Int32Array | null): Int32Array;
}

interface CandidateRow {
  id: string;
  base_length: number;
}

/**
 * Builds the prompt delta codec over an open database and a cache of recent base sequences.
 *
 * @example
 * const delta = createPromptDelta({ database, cache: new SequenceCache() });
 * const link = delta.encode(promptIds, delta.candidatesLater(callId)()); // store link.parentId, link.prefixLength, link.tail
 */
export function createPromptDelta(options: { database: SqlDatabase; cache: SequenceCache }): PromptDelta {
  const { database, cache } = options;
  const chain = createPromptChain({ database, cache });
  const bytes = (column: string): string => (dialectOf(database) === 'sqlite' ? `length(${column})` : `octet_length(${column})`);
  // the earlier calls of the call's session (the call itself has no prompt_tail yet)
  const selectCandidates = queuedAll(
    database.prepare<[string, number], CandidateRow>(
      `SELECT id,
              prompt_prefix_length + ${bytes('prompt_tail')} / 4 + coalesce(${bytes('completion_token_ids')} / 4, 0) AS base_length
         FROM calls
        WHERE session_id = (SELECT session_id FROM calls WHERE id = ?) AND prompt_tail IS NOT NULL
        ORDER BY seq DESC
        LIMIT ?`,
    ),
  );

  function candidatesLater(callId: string): () => PromptCandidate[] {
    const read = selectCandidates(callId, DEFAULT_PROMPT_PARENT_CANDIDATES);
    return () => read().map((row) => ({ id: row.id, baseLength: row.base_length }));
  }

  function encode(prompt: Int32Array, given: readonly PromptCandidate[]): PromptLink {
    const candidates = withinBudget(given, cache.maxIds / 2);
    let parentId: string | null = null;
    let prefixLength = 0;
    // Newest first, replacing only on a strictly longer prefix: ties go to the most recent call. A
    // candidate too short to beat the best so far is never loaded: usually the newest call is the
    // parent and every older base is shorter than what it shares.
    for (const candidate of candidates) {
      if (Math.min(prompt.length, candidate.baseLength) <= prefixLength) continue;
      const shared = sharedPrefixLength(prompt, chain.readBase(candidate.id));
      if (shared > prefixLength) {
        parentId = candidate.id;
        prefixLength = shared;
      }
    }
    return { parentId, prefixLength, tail: prompt.subarray(prefixLength) };
  }

  return { candidatesLater, encode, decode: chain.decode, remember: chain.remember };
}

/** Newest candidates whose bases fit in `maxIds` together (always at least one), so encoding never thrashes the cache. */
function withinBudget(candidates: readonly PromptCandidate[], maxIds: number): PromptCandidate[] {
  let total = 0;
  const kept: PromptCandidate[] = [];
  for (const candidate of candidates) {
    total += candidate.baseLength;
    if (kept.length > 0 && total > maxIds) break;
    kept.push(candidate);
  }
  return kept;
}
