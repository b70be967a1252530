import type { SqlDatabase } from './sql/sql-database.js';
import { unpackInt32 } from './pack-tokens.js';
import type { SequenceCache } from './sequence-cache.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Reads prompts back from their delta chains (see prompt-delta.ts for how they are written).
 *
 * A walk is a loop, not recursion (a 1,000-turn session must not recurse 1,000 deep), fills only the
 * ids still missing at the front (each id is copied once: O(length + depth) per read), and stops at
 * the first ancestor whose base sequence is cached. On the way it caches ancestors CHECKPOINT_STEP,
 * CHECKPOINT_STEP^2, ... steps up, so reading a long session in any order walks a bounded number of
 * rows per call instead of the whole chain each time.
 */

const CHECKPOINT_STEP = 16;

/** The stored columns a prompt is read back from. */
export interface StoredPromptLink {
  parentId: string | null;
  prefixLength: number;
  tail: Buffer;
}

export interface PromptChain {
  /** Rebuilds the full prompt ids (a fresh array) from a stored link. */
  decode(link: StoredPromptLink): Int32Array;
  /** The base sequence (prompt ++ completion) of a call with a prompt, from the cache or its chain. */
  readBase(callId: string): Int32Array;
  /** Caches a call's base sequence (a copy, so callers may keep their arrays) and returns it. */
  remember(callId: string, prompt: Int32Array, completion: Int32Array | null): Int32Array;
}

interface LinkRow {
  prompt_parent_id: string | null;
  prompt_prefix_length: number | null;
  prompt_tail: Buffer | null;
  completion_token_ids: Buffer | null;
}

interface ParentLink {
  parentId: string | null;
  prefixLength: number;
  tail: Int32Array;
  completion: Int32Array;
}

interface Checkpoint {
  callId: string;
  promptLength: number;
  completion: Int32Array;
}

/**
 * @example
 * const chain = createPromptChain({ database, cache });
 * const prompt = chain.decode({ parentId, prefixLength, tail });
 */
export function createPromptChain(options: { database: SqlDatabase; cache: SequenceCache }): PromptChain {
  const { database, cache } = options;
  const selectLink = database.prepare<[string], LinkRow>(
    `SELECT prompt_parent_id, prompt_prefix_length, prompt_tail, completion_token_ids FROM calls WHERE id = ?`,
  );

  function readLink(callId: string): ParentLink {
    const row = selectLink.get(callId);
    if (row === undefined || row.prompt_tail === null || row.prompt_prefix_length === null) {
      throw corrupt(`prompt parent ${callId} is missing or has no prompt`);
    }
    return {
      parentId: row.prompt_parent_id,
      prefixLength: row.prompt_prefix_length,
      tail: unpackInt32(row.prompt_tail),
      completion: row.completion_token_ids === null ? new Int32Array(0) : unpackInt32(row.completion_token_ids),
    };
  }

  function decode(link: StoredPromptLink): Int32Array {
    const tail = unpackInt32(link.tail);
    const prompt = new Int32Array(link.prefixLength + tail.length);
    prompt.set(tail, link.prefixLength);
    const checkpoints: Checkpoint[] = [];
    let nextCheckpoint = CHECKPOINT_STEP;
    let needed = link.prefixLength;
    let parentId = link.parentId;
    for (let step = 1; needed > 0; step++) {
      if (parentId === null) throw corrupt(`a prompt needs ${needed} ids from a parent it does not name`);
      const cached = cache.get(parentId);
      if (cached !== undefined) {
        if (cached.base.length < needed) throw corrupt(`call ${parentId} is shorter than its child's prefix`);
        prompt.set(cached.base.subarray(0, needed), 0);
        break;
      }
      const parent = readLink(parentId);
      const parentPromptLength = parent.prefixLength + parent.tail.length;
      // Once the walk is done, prompt[0, parentPromptLength) is this ancestor's whole prompt.
      if (step >= nextCheckpoint && needed >= parentPromptLength) {
        checkpoints.push({ callId: parentId, promptLength: parentPromptLength, completion: parent.completion });
        nextCheckpoint *= CHECKPOINT_STEP;
      }
      needed = fillFromParent(prompt, needed, parent, parentId);
      parentId = parent.parentId;
    }
    for (const checkpoint of checkpoints) {
      remember(checkpoint.callId, prompt.subarray(0, checkpoint.promptLength), checkpoint.completion);
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
      throw corrupt(`call ${callId} has no prompt`);
    }
    const prompt = decode({ parentId: row.prompt_parent_id, prefixLength: row.prompt_prefix_length, tail: row.prompt_tail });
    return remember(callId, prompt, row.completion_token_ids === null ? null : unpackInt32(row.completion_token_ids));
  }

  return { decode, readBase, remember };
}

/**
 * Copies what the parent provides of the first `needed` ids (the parent's base is its prefix, its
 * tail, then its completion) and returns how many leading ids are still missing.
 */
function fillFromParent(prompt: Int32Array, needed: number, parent: ParentLink, parentId: string): number {
  const parentPromptLength = parent.prefixLength + parent.tail.length;
  let missing = needed;
  if (missing > parentPromptLength) {
    const fromCompletion = missing - parentPromptLength;
    if (fromCompletion > parent.completion.length) throw corrupt(`call ${parentId} is shorter than its child's prefix`);
    prompt.set(parent.completion.subarray(0, fromCompletion), parentPromptLength);
    missing = parentPromptLength;
  }
  if (missing > parent.prefixLength) {
    prompt.set(parent.tail.subarray(0, missing - parent.prefixLength), parent.prefixLength);
    missing = parent.prefixLength;
  }
  return missing;
}

function corrupt(message: string): TokentapError {
  return new TokentapError('STORE_CORRUPT', { message });
}
