import type Database from 'better-sqlite3';
import { commonPrefixLength } from './common-prefix-length.js';
import { unpackInt32 } from './pack-tokens.js';
import type { SequenceCache } from './sequence-cache.js';
import { StoreError } from './store-error.js';

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

/** The stored columns a prompt is read back from. */
export interface StoredPromptLink {
  parentId: string | null;
  prefixLength: number;
  tail: Buffer;
}

export interface PromptDelta {
  /** Chooses the parent for a new prompt; run inside the finishing transaction. */
  encode(sessionId: string, prompt: Int32Array): PromptLink;
  /** Rebuilds the full prompt ids (a fresh array) from a stored link. */
  decode(link: StoredPromptLink): Int32Array;
  /** Caches a committed call's base sequence (a copy, so callers may keep their arrays) and returns it. */
  remember(callId: string, prompt: Int32Array, completion: Int32Array | null): Int32Array;
}

interface LinkRow {
  prompt_parent_id: string | null;
  prompt_prefix_length: number | null;
  prompt_tail: Buffer | null;
  completion_token_ids: Buffer | null;
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
 * const link = delta.encode(sessionId, promptIds); // store link.parentId, link.prefixLength, link.tail
 */
export function createPromptDelta(options: { database: Database.Database; cache: SequenceCache }): PromptDelta {
  const { database, cache } = options;
  const selectLink = database.prepare<[string], LinkRow>(
    `SELECT prompt_parent_id, prompt_prefix_length, prompt_tail, completion_token_ids FROM calls WHERE id = ?`,
  );
  const selectCandidates = database.prepare<[string, number], CandidateRow>(
    `SELECT id,
            prompt_prefix_length + length(prompt_tail) / 4 + coalesce(length(completion_token_ids) / 4, 0) AS base_length
       FROM calls
      WHERE session_id = ? AND prompt_tail IS NOT NULL
      ORDER BY seq DESC
      LIMIT ?`,
  );

  function decode(link: StoredPromptLink): Int32Array {
    const tail = unpackInt32(link.tail);
    const prompt = new Int32Array(link.prefixLength + tail.length);
    prompt.set(tail, link.prefixLength);
    // Walk up the chain in a loop (a 1,000-turn session must not recurse 1,000 deep), filling only
    // the ids still missing at the front: each id is copied once, so a read costs O(length + depth).
    let needed = link.prefixLength;
    let parentId = link.parentId;
    while (needed > 0) {
      if (parentId === null) throw corrupt(`a prompt needs ${needed} ids from a parent it does not name`);
      const cached = cache.get(parentId);
      if (cached !== undefined) {
        if (cached.base.length < needed) throw corrupt(`call ${parentId} is shorter than its child's prefix`);
        prompt.set(cached.base.subarray(0, needed), 0);
        return prompt;
      }
      const row = selectLink.get(parentId);
      if (row === undefined || row.prompt_tail === null || row.prompt_prefix_length === null) {
        throw corrupt(`prompt parent ${parentId} is missing or has no prompt`);
      }
      const parentTail = unpackInt32(row.prompt_tail);
      const parentPromptLength = row.prompt_prefix_length + parentTail.length;
      if (needed > parentPromptLength) {
        const completion = row.completion_token_ids === null ? new Int32Array(0) : unpackInt32(row.completion_token_ids);
        const fromCompletion = needed - parentPromptLength;
        if (fromCompletion > completion.length) throw corrupt(`call ${parentId} is shorter than its child's prefix`);
        prompt.set(completion.subarray(0, fromCompletion), parentPromptLength);
        needed = parentPromptLength;
      }
      if (needed > row.prompt_prefix_length) {
        prompt.set(parentTail.subarray(0, needed - row.prompt_prefix_length), row.prompt_prefix_length);
        needed = row.prompt_prefix_length;
      }
      parentId = row.prompt_parent_id;
    }
    return prompt;
  }

  function remember(callId: string, prompt: Int32Array, completion: Int32Array | null): Int32Array {
    const base = new Int32Array(prompt.length + (completion?.length ?? 0));
    base.set(prompt, 0);
    if (completion !== null) base.set(completion, prompt.length);
    cache.set(callId, { base, promptLength: prompt.length });
    return base;
  }

  function readBase(callId: string): Int32Array {
    const cached = cache.get(callId);
    if (cached !== undefined) return cached.base;
    const row = selectLink.get(callId);
    if (row === undefined || row.prompt_tail === null || row.prompt_prefix_length === null) {
      throw corrupt(`candidate parent ${callId} has no prompt`);
    }
    const prompt = decode({ parentId: row.prompt_parent_id, prefixLength: row.prompt_prefix_length, tail: row.prompt_tail });
    const completion = row.completion_token_ids === null ? null : unpackInt32(row.completion_token_ids);
    return remember(callId, prompt, completion);
  }

  function encode(sessionId: string, prompt: Int32Array): PromptLink {
    const candidates = withinBudget(selectCandidates.all(sessionId, DEFAULT_PROMPT_PARENT_CANDIDATES), cache.maxIds / 2);
    // Oldest first: each decode then stops at the call before it, which the previous step cached.
    const bases = new Map<string, Int32Array>();
    for (const candidate of [...candidates].reverse()) bases.set(candidate.id, readBase(candidate.id));
    let parentId: string | null = null;
    let prefixLength = 0;
    // Newest first, replacing only on a strictly longer prefix: ties go to the most recent call.
    for (const candidate of candidates) {
      const shared = commonPrefixLength(prompt, bases.get(candidate.id) as Int32Array);
      if (shared > prefixLength) {
        parentId = candidate.id;
        prefixLength = shared;
      }
      if (prefixLength === prompt.length) break;
    }
    return { parentId, prefixLength, tail: prompt.subarray(prefixLength) };
  }

  return { encode, decode, remember };
}

/** Newest candidates whose bases fit in `maxIds` together (always at least one), so encoding never thrashes the cache. */
function withinBudget(candidates: CandidateRow[], maxIds: number): CandidateRow[] {
  let total = 0;
  const kept: CandidateRow[] = [];
  for (const candidate of candidates) {
    total += candidate.base_length;
    if (kept.length > 0 && total > maxIds) break;
    kept.push(candidate);
  }
  return kept;
}

function corrupt(message: string): StoreError {
  return new StoreError('STORE_CORRUPT', message);
}
